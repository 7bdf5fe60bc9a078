import { fileURLToPath } from 'node:url';
import { membershipMigrations } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, ensureDatabase, migrate } from '@wiki/db';
import { connectEventBus, type EventBus, eventsMigrations, type RunningConsumer, startOutboxRelay } from '@wiki/events';
import type { FastifyInstance } from 'fastify';
import { buildApp, documentContextOf } from './app.js';
import { startDocumentConsumers } from './events/consumers.js';

export { buildApp, documentContextOf } from './app.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export interface RunningDocumentService {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * Everything but listening: database (created and migrated), NATS stream, the app, the outbox
 * relay and the consumers (membership, users, comment threads, workspace deletion).
 */
export async function startService(config: Config, opts: { logLevel?: string } = {}): Promise<RunningDocumentService> {
  const url = config.databaseUrls.document;
  await ensureDatabase(url);
  await migrate(url, [eventsMigrations, membershipMigrations, { dir: MIGRATIONS_DIR, table: 'pgmigrations' }]);
  const pool = await createDatabasePool(url, { maximumPoolSize: 20 });

  let kick = () => {};
  let bus: EventBus | undefined;
  const app = await buildApp(config, {
    pool,
    logLevel: opts.logLevel,
    eventsWritten: () => kick(),
    checks: { nats: () => (bus ? bus.health() : Promise.reject(new Error('not connected yet'))) },
  });
  const logger = app.log;
  const stoppers: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stoppers.reverse())
      await s().catch((error) => logger.warn({ err: error }, 'stopping a part failed'));
  };
  stoppers.push(() => pool.end());
  stoppers.push(() => app.close());

  try {
    const connected = await connectEventBus({
      natsUrl: config.natsUrl,
      stream: config.eventsStream,
      prefix: config.eventsPrefix,
      name: 'document',
      logger,
    });
    bus = connected;
    stoppers.push(() => connected.close());
    await connected.ensureStream();

    const relay = startOutboxRelay({ pool, bus: connected, logger });
    kick = () => relay.kick();
    stoppers.push(() => relay.stop());

    const consumers: RunningConsumer[] = [
      await documentContextOf(app).membership.startProjection(connected),
      ...(await startDocumentConsumers({ bus: connected, pool, logger })),
    ];
    stoppers.push(async () => {
      await Promise.all(consumers.map((c) => c.stop()));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { app, stop };
}
