import { randomBytes } from 'node:crypto';
import {
  type CommonQueryMethods,
  createDatabasePool,
  type DatabasePool,
  dropDatabase,
  ensureDatabase,
  migrate,
  sql,
  z,
} from '@wiki/db';
import { eventsMigrations } from '@wiki/events';

/** The machine's Postgres and NATS, as the tests of libs and scripts reach them without a stack. */
export const TEST_PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export function randomSuffix(): string {
  return randomBytes(5).toString('hex');
}

export interface EventsTestDatabase {
  url: string;
  pool: DatabasePool;
  /** Rows the test handlers write: one per applied event per consumer. */
  effects(consumer: string, eventId: string): Promise<number>;
  drop(): Promise<void>;
}

/** A throw-away database with the events tables and an `effects` table for handlers to write. */
export async function createEventsTestDatabase(): Promise<EventsTestDatabase> {
  const url = `${TEST_PG_URL}/events_test_${randomSuffix()}`;
  await ensureDatabase(url);
  await migrate(url, [eventsMigrations]);
  const pool = await createDatabasePool(url);
  await pool.query(sql.unsafe`CREATE TABLE effects (consumer text NOT NULL, event_id uuid NOT NULL)`);
  return {
    url,
    pool,
    effects: (consumer, eventId) =>
      pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM effects WHERE consumer = ${consumer} AND event_id = ${eventId}
      `),
    async drop() {
      await pool.end();
      await dropDatabase(url);
    },
  };
}

/** Outbox rows waiting for the relay (rows set aside are not: see libs/events relay-rows.ts). */
export function countPending(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(
    sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM event_outbox WHERE sent_at IS NULL AND failed_at IS NULL`,
  );
}
