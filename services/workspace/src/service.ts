import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { createDatabasePool, ensureDatabase, type MigrationSet, migrate } from '@wiki/db';
import { connectEventBus, eventsMigrations, startOutboxRelay } from '@wiki/events';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { startDocumentCountConsumer } from './events/document-count.js';

export { type AppDeps, buildApp } from './app.js';

/** src/ and dist/ both sit beside migrations/. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** What start-up (and `npm run migrate`) applies, in order: the outbox tables, then this service's. */
export const migrationSets: MigrationSet[] = [eventsMigrations, { dir: MIGRATIONS_DIR, table: 'pgmigrations' }];

export interface RunningService {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * Everything but listening: database (created and migrated), NATS stream, HTTP app, outbox relay
 * and the document-count consumer. `stop()` undoes it in reverse order.
 */
export async function startService(config: Config, opts: { logLevel?: string } = {}): Promise<RunningService> {
  const databaseUrl = config.databaseUrls.workspace;
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, migrationSets);
  const pool = await createDatabasePool(databaseUrl);

  let app: FastifyInstance | undefined;
  let bus: Awaited<ReturnType<typeof connectEventBus>> | undefined;
  try {
    const relayRef: { kick?: () => void } = {};
    app = await buildApp(config, {
      pool,
      afterCommit: () => relayRef.kick?.(),
      natsHealth: () => (bus ? bus.health() : Promise.reject(new Error('not connected yet'))),
      logLevel: opts.logLevel,
    });
    const logger = app.log;
    bus = await connectEventBus({
      natsUrl: config.natsUrl,
      stream: config.eventsStream,
      prefix: config.eventsPrefix,
      name: 'workspace',
      logger,
    });
    await bus.ensureStream();
    const relay = startOutboxRelay({ pool, bus, logger });
    relayRef.kick = () => relay.kick();
    const consumer = await startDocumentCountConsumer({ bus, pool, logger });

    const running = { app, bus };
    return {
      app,
      async stop() {
        await running.app.close();
        await consumer.stop();
        await relay.stop();
        await running.bus.close();
        await pool.end();
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await pool.end();
    throw error;
  }
}
