import { existsSync } from 'node:fs';

export interface MigrationSet {
  /** Folder of `NNNN_name.sql` files. */
  dir: string;
  /** Table recording which of this set's files ran. */
  table: string;
}

export interface MigrateLogger {
  info(obj: object, msg?: string): void;
}

/**
 * Applies pending SQL migrations, set by set. node-pg-migrate holds a Postgres advisory lock
 * while it runs; with `wait` mode a second replica blocks until the first has finished instead
 * of failing its start-up.
 */
export async function migrate(databaseUrl: string, sets: MigrationSet[], logger?: MigrateLogger): Promise<string[]> {
  // Loaded when a part migrates, not with libs/db: the gateway and the services without a database
  // never hold it (docs/PERFORMANCE.md, "What each part loads at start").
  const { runner } = await import('node-pg-migrate');
  const applied: string[] = [];
  for (const set of sets) {
    if (!existsSync(set.dir)) continue;
    const ran = await runner({
      databaseUrl,
      dir: set.dir,
      migrationsTable: set.table,
      direction: 'up',
      checkOrder: true,
      singleTransaction: true,
      advisoryLockMode: 'wait',
      log: () => {},
    });
    applied.push(...ran.map((m) => m.name));
  }
  if (applied.length) logger?.info({ migrations: applied }, 'migrations applied');
  return applied;
}
