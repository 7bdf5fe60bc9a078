import { fileURLToPath } from 'node:url';
import { membershipMigrations } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, ensureDatabase, migrate } from '@wiki/db';
import {
  connectEventBus,
  type EventBus,
  eventsMigrations,
  type OutboxRelay,
  type RunningConsumer,
  startOutboxRelay,
} from '@wiki/events';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { startDocumentProjection } from './events/document-projection.js';
import { startUserProjection } from './events/user-projection.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const commentMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

export interface RunningCommentService {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * Prepares the database (create, migrate), connects to NATS, builds the app and starts the outbox
 * relay and the projections (memberships, documents, users). Does not listen.
 */
export async function startService(config: Config, opts: { logLevel?: string } = {}): Promise<RunningCommentService> {
  const databaseUrl = config.databaseUrls.comment;
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, [eventsMigrations, membershipMigrations, commentMigrations]);
  const pool = await createDatabasePool(databaseUrl);

  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  const consumers: RunningConsumer[] = [];
  let app: FastifyInstance | undefined;

  const stop = async () => {
    for (const c of consumers.splice(0)) await c.stop().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  };

  try {
    app = await buildApp(config, {
      pool,
      logLevel: opts.logLevel,
      eventsCommitted: () => relay?.kick(),
      checks: { nats: async () => (bus ? bus.health() : Promise.reject(new Error('not connected yet'))) },
    });
    const logger = app.log;
    bus = await connectEventBus({
      natsUrl: config.natsUrl,
      stream: config.eventsStream,
      prefix: config.eventsPrefix,
      name: 'comment',
      logger,
    });
    await bus.ensureStream();
    relay = startOutboxRelay({ pool, bus, logger });
    consumers.push(await app.commentMembership.startProjection(bus));
    consumers.push(await startDocumentProjection(bus, pool, logger));
    consumers.push(await startUserProjection(bus, pool, logger));
    return { app, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
