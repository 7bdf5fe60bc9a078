import { randomBytes } from 'node:crypto';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { eventsMigrations, type Logger } from '../src/index.js';

export const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export function randomSuffix(): string {
  return randomBytes(5).toString('hex');
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg?: string;
}

/** A logger that keeps what it was told (so tests can assert on error logs) and prints nothing. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface TestDatabase {
  url: string;
  pool: DatabasePool;
  /** Rows the test handlers write: one per applied event per consumer. */
  effects(consumer: string, eventId: string): Promise<number>;
  drop(): Promise<void>;
}

/** A throw-away database with the events tables and an `effects` table for handlers to write. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = `${PG_URL}/events_test_${randomSuffix()}`;
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
