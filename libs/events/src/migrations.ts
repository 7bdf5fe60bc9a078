import { fileURLToPath } from 'node:url';
import type { MigrationSet } from '@wiki/db';

/**
 * The outbox and consumed-events tables. Services pass this to migrate() before their own set;
 * it has its own bookkeeping table so its file numbers never clash with the service's.
 */
export const eventsMigrations: MigrationSet = {
  // src/ and dist/ both sit beside migrations/, so the same relative path works compiled or not.
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations_events',
};
