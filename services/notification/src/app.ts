import type { Config } from '@wiki/config';
import { sql } from '@wiki/db';
import { addScrapeCounter, addScrapeGauge, HealthDetails } from '@wiki/http';
import { createMembershipAccess, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { ServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';
import { createPreparedReads, type PreparedReads } from './db/prepared-reads.js';
import { createStreamLimit, type StreamLimit } from './live/stream-limit.js';
import { NotificationStreams } from './live/streams.js';
import { MailRelay } from './mail/queue.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerStreamRoute } from './routes/stream.js';
import { registerWatchRoutes } from './routes/watch.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import {
  loadMailSettings,
  loadNotificationSettings,
  loadWebhookSettings,
  type MailSettings,
  type WebhookSettings,
} from './settings.js';
import { queuePrefixOf, WebhookQueue } from './webhooks/queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Who is a member: comment notifications go to members only (service.ts starts its consumer). */
    notificationMembership: MembershipAccess;
    /** The client for peers (members and users the projections do not hold yet). */
    notificationPeers: ServiceClient;
    /** This replica's open streams and the fan-out between replicas (service.ts joins it). */
    notificationStreams: NotificationStreams;
    /** Open streams per user across replicas (service.ts attaches it to NATS). */
    notificationStreamLimit: StreamLimit;
    /** E-mail: its settings and the relay from the outbox to the queue (service.ts starts the rest). */
    notificationMail: { settings: MailSettings; relay: MailRelay };
    /** The webhook deliveries' queue and settings (service.ts starts their consumer and worker). */
    notificationWebhooks: { queue: WebhookQueue; settings: WebhookSettings; queuePrefix: string };
  }
}

export interface AppDeps extends ServiceAppDeps {
  /** Defaults to prepared statements on a pool of the service's own (closed with the app). */
  reads?: PreparedReads;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  let openStreams = () => 0;
  const checks = {
    ...(deps.checks ?? { database: () => deps.pool.query(sql.unsafe`SELECT 1`) }),
    // Not a dependency: how many streams this replica holds, under the readiness details.
    streams: async () => new HealthDetails({ streams: { open: openStreams() } }),
  };
  const { app, peers } = await createServiceApp(
    config,
    { ...deps, checks },
    {
      service: 'notification',
      openapi: { title: 'Notification service', description: 'Notifications of users (spec 4.9, ARCHITECTURE 5.6)' },
    },
  );
  const logger = app.log;
  const streams = new NotificationStreams(deps.pool, logger, loadNotificationSettings(config.env).heartbeatMs);
  openStreams = () => streams.open;
  addScrapeGauge(app, {
    name: 'notification_sse_streams_open',
    help: 'Notification SSE streams this replica holds',
    read: () => streams.open,
  });
  app.decorate('notificationStreams', streams);
  // Open streams would hold the server's close up: end them first (clients reconnect elsewhere).
  app.addHook('preClose', async () => streams.closeAll());
  const streamLimit = createStreamLimit(config, logger);
  await streamLimit.ready();
  app.decorate('notificationStreamLimit', streamLimit);
  addScrapeCounter(app, {
    name: 'notification_sse_streams_pushed_out_total',
    help: 'Streams closed because a newer one of the same user went past NOTIFICATION_STREAMS_PER_USER',
    read: () => streamLimit.pushedOut,
  });
  app.addHook('onClose', () => streamLimit.close());
  app.decorate(
    'notificationMembership',
    createMembershipAccess({ pool: deps.pool, client: peers, service: 'notification', logger }),
  );
  app.decorate('notificationPeers', peers);
  let reads = deps.reads;
  if (!reads) {
    const owned = createPreparedReads(config.databaseUrls.notification, logger);
    app.addHook('onClose', () => owned.end());
    reads = owned;
  }
  const mailSettings = loadMailSettings(config);
  const relay = new MailRelay(deps.pool, config.redisUrl, mailSettings, logger);
  app.addHook('onClose', () => relay.close());
  app.decorate('notificationMail', { settings: mailSettings, relay });
  registerNotificationRoutes(app, { pool: deps.pool, reads, notify: (userIds) => streams.notify(userIds) });
  registerStreamRoute(app, streams, streamLimit, app.notificationMembership);
  const webhookSettings = loadWebhookSettings(config.env);
  const queuePrefix = queuePrefixOf(config.dbPrefix);
  const webhookQueue = new WebhookQueue(config.redisUrl, queuePrefix);
  app.addHook('onClose', () => webhookQueue.close());
  app.decorate('notificationWebhooks', { queue: webhookQueue, settings: webhookSettings, queuePrefix });
  registerWebhookRoutes(app, {
    pool: deps.pool,
    membership: app.notificationMembership,
    queue: webhookQueue,
    settings: webhookSettings,
  });
  registerWatchRoutes(app, { pool: deps.pool, membership: app.notificationMembership, peers });
  return app;
}
