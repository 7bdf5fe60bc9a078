import { databaseUrl, loadConfig } from '@wiki/config';
import { type DatabasePool, dropDatabase, ensureDatabase, migrate } from '@wiki/db';
import { migrationSetsOf } from '@wiki/service';
import { uniqueName } from '@wiki/testing';
import { createPool } from 'slonik';
import { searchService } from '../src/service.js';

export interface CountedDatabase {
  pool: DatabasePool;
  /** Statements the pool has sent since the last reset. */
  statements(): number;
  reset(): void;
  drop(): Promise<void>;
}

/**
 * A search database of its own, migrated like the service's, with a pool that counts the
 * statements it sends (what a search costs the database is part of the engine's contract).
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
  return {
    pool,
    statements: () => count,
    reset: () => {
      count = 0;
    },
    async drop() {
      await pool.end();
      await dropDatabase(url);
    },
  };
}
