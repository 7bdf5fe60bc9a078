import type { Config } from '@wiki/config';
import { addScrapeGauge } from '@wiki/http';
import { createMembershipAccess, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import { createStorage, type ObjectStorage } from '@wiki/storage';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { JobQueue } from './jobs/queue.js';
import { ExportClient } from './queue/client.js';
import { UserSlots } from './queue/user-slots.js';
import { registerExportRoutes } from './routes/export.js';
import { registerImportRoutes } from './routes/import.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerTreeExportRoutes } from './routes/tree-export.js';
import { type ExportSettings, hasApi } from './settings.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Who may export (VIEWER and above); service.ts starts its projection in the API role. */
    exportMembership: MembershipAccess;
    /** Where finished files wait (libs/storage, the attachments' store): workers write, the API streams. */
    exportStorage: ObjectStorage;
    /** The settings it was built with: which role's consumers and jobs start (service.ts). */
    exportSettings: ExportSettings;
  }
}

export interface AppDeps extends ServiceAppDeps {
  settings: ExportSettings;
  /** Another store than the configured one (tests). */
  storage?: ObjectStorage;
}

/** BullMQ's keys: `<DB_PREFIX>:bull` unless EXPORT_QUEUE_PREFIX says otherwise (each test has its own). */
export const queuePrefixOf = (config: Pick<Config, 'dbPrefix'>, settings: Pick<ExportSettings, 'queuePrefix'>) =>
  settings.queuePrefix ?? `${config.dbPrefix}:bull`;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { settings } = deps;
  const prefix = queuePrefixOf(config, settings);
  const client = hasApi(settings.role) ? new ExportClient({ redisUrl: config.redisUrl, prefix, settings }) : undefined;
  // The worker role has no queue client; its readiness still needs Redis.
  const probe = client ? undefined : new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  probe?.on('error', () => undefined); // the readiness check reports it
  const redis = () => (client ? client.ping() : (probe as Redis).ping());
  const storage = deps.storage ?? (await createStorage(config));
  await storage.prepare();
  const { app, peers } = await createServiceApp(
    config,
    { ...deps, checks: { ...deps.checks, redis, storage: () => storage.check() } },
    {
      service: 'export',
      openapi: {
        title: 'Export service',
        description: 'Documents as PDF, Word and Markdown (spec 4.4, ARCHITECTURE 5.10)',
      },
    },
  );
  app.decorate(
    'exportMembership',
    createMembershipAccess({ pool: deps.pool, client: peers, service: 'export', logger: app.log }),
  );
  app.decorate('exportStorage', storage);
  app.decorate('exportSettings', settings);
  app.addHook('onClose', async () => {
    await client?.close();
    probe?.disconnect();
  });
  if (client) {
    addScrapeGauge(app, {
      name: 'export_queue_jobs',
      help: 'Export jobs on the queue by state (waiting for a long time: too few workers)',
      label: 'state',
      read: () => client.jobCounts(),
    });
    await client.ready();
    // A slot outlives the longest wait for a worker by a margin for the download.
    const slots = new UserSlots(client.redis, prefix, settings.concurrentPerUser, settings.timeoutMs + 60_000);
    registerExportRoutes(app, {
      client,
      membership: app.exportMembership,
      peers,
      storage,
      slots,
      logger: app.log,
    });
    const jobs = new JobQueue(config.redisUrl, prefix, settings);
    app.addHook('onClose', () => jobs.close());
    await jobs.ready();
    registerTreeExportRoutes(app, {
      pool: deps.pool,
      queue: jobs,
      perUser: settings.concurrentPerUser,
      membership: app.exportMembership,
      peers,
    });
    await registerImportRoutes(app, {
      pool: deps.pool,
      queue: jobs,
      perUser: settings.concurrentPerUser,
      membership: app.exportMembership,
      peers,
      storage,
      maxBytes: settings.importMaxBytes,
    });
    registerJobRoutes(app, { pool: deps.pool, storage });
  }
  return app;
}
