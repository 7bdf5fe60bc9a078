import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { AckFloor } from '@wiki/events';
import { membershipMigrations, startUsersProjection, usersProjectionMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { SWEEP_INTERVAL_MS, startExpirySweeper } from './events/expiry-sweeper.js';
import { startNotificationProducer } from './events/producers.js';
import { startStaleDeliverySweep, startWebhookDeliveries, WEBHOOKS_CONSUMER } from './events/webhook-deliveries.js';
import { startMail } from './mail/start.js';
import { loadMailSettings, loadNotificationSettings, loadWebhookSettings } from './settings.js';
import { startWebhookWorker } from './webhooks/worker.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const notificationMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/** Notifications made from events (ARCHITECTURE 5.6); memberships and user names from projections. */
export const notificationService = defineService({
  name: 'notification',
  migrations: [membershipMigrations, usersProjectionMigrations, notificationMigrations],
  settings: (config) => ({
    notification: loadNotificationSettings(config.env),
    mail: loadMailSettings(config),
    webhooks: loadWebhookSettings(config.env),
  }),
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [
    // First: the producer below tells streams through it from its first event on.
    async ({ app, bus }) => app.notificationStreams.connect(bus),
    // Streams of this replica that a newer one of the same user, on another replica, pushes out.
    async ({ app, bus }) => {
      app.notificationStreamLimit.attach(bus.nc);
      return { stop: async () => undefined };
    },
    ({ app, bus }) => app.notificationMembership.startProjection(bus),
    ({ bus, pool, logger }) => startUsersProjection({ bus, pool, logger, service: 'notification' }),
    ({ app, bus, pool, logger, config }) =>
      startNotificationProducer(bus, pool, {
        peers: app.notificationPeers,
        logger,
        watchDebounceS: loadNotificationSettings(config.env).watchDebounceS,
        notify: (userIds) => app.notificationStreams.notify(userIds),
        kickMail: () => app.notificationMail.relay.kick(),
      }),
    // Webhooks (ARCHITECTURE 5.18): a delivery row per webhook and event, a job per delivery.
    ({ app, bus, pool, logger }) => startWebhookDeliveries(bus, pool, { ...app.notificationWebhooks, logger }),
  ],
  jobs: [
    ({ app, pool, logger }) =>
      startExpirySweeper(pool, logger, SWEEP_INTERVAL_MS, (userIds) => app.notificationStreams.notify(userIds)),
    // E-mail (ARCHITECTURE 5.18): every replica sends, relays the outbox and makes the digests due.
    ({ app, pool, logger, config }) => startMail({ app, pool, logger, config }),
    ({ app, bus, config, pool, logger }) =>
      startWebhookWorker({
        pool,
        redisUrl: config.redisUrl,
        prefix: app.notificationWebhooks.queuePrefix,
        settings: app.notificationWebhooks.settings,
        logger,
        notify: (userIds) => app.notificationStreams.notify(userIds),
        ackFloor: new AckFloor({ bus, consumer: WEBHOOKS_CONSUMER, logger }),
      }),
    ({ app, pool, logger }) => startStaleDeliverySweep(pool, app.notificationWebhooks.queue, logger),
  ],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(notificationService, config, opts);
