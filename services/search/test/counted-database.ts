import { databaseUrl, loadConfig } from '@wiki/config';
import {
  createPreparedPool,
  type DatabasePool,
  dropDatabase,
  ensureDatabase,
  migrate,
  type PreparedPool,
} from '@wiki/db';
import { migrationSetsOf } from '@wiki/service';
import { uniqueName } from '@wiki/testing';
import { createPool } from 'slonik';
import { searchService } from '../src/service.js';

export interface CountedDatabase {
  pool: DatabasePool;
  /** The node-postgres pool searches and the answer cache's versions use (prepared statements). */
  reads: PreparedPool;
  /** Statements both pools have sent since the last reset. */
  statements(): number;
  reset(): void;
  drop(): Promise<void>;
}

/**
 * A search database of its own, migrated like the service's, with pools that count the
 * statements they send (what a search costs the database is part of the engine's contract).
 */
export async function countedSearchDatabase(): Promise<CountedDatabase> {
  const pgUrl = loadConfig({ NODE_ENV: 'test', ...process.env }).pgUrl;
  const url = databaseUrl(pgUrl, `${uniqueName()}_search`);
  await ensureDatabase(url);
  await migrate(url, migrationSetsOf(searchService));
  let count = 0;
  const pool = await createPool(url, {
    maximumPoolSize: 2,
    interceptors: [
      {
        name: 'count-statements',
        beforeQueryExecution: () => {
          count++;
          return null;
        },
      },
    ],
  });
  const reads = createPreparedPool(url, { warn() {} }, 2);
  const send = reads.query.bind(reads);
  reads.query = ((...args: Parameters<typeof send>) => {
    count++;
    return send(...args);
  }) as typeof reads.query;
  return {
    pool,
    reads,
    statements: () => count,
    reset: () => {
      count = 0;
    },
    async drop() {
      await reads.end();
      await pool.end();
      await dropDatabase(url);
    },
  };
}
