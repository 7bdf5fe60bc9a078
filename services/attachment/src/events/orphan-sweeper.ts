import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import type { ObjectStorage, StoredObject } from '@wiki/storage';
import { knownKeys, pruneTombstones } from '../db/attachments.js';

/** How often the sweep runs. */
export const SWEEP_INTERVAL_MS = 10 * 60_000;
/**
 * How old an object without a record must be before it is removed: far longer than any upload
 * takes between writing its object and its record, so a running upload never loses its file.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;
/** Tombstones of deleted documents outlive any upload that could still be running for them. */
const TOMBSTONE_TTL_MS = 24 * 60 * 60_000;
const BATCH = 500;

export interface SweepOptions {
  graceMs?: number;
  now?: Date;
}

export interface SweepResult {
  /** Objects removed because no record names them. */
  objects: number;
  /** Spool files left by uploads that never finished (a crash mid-upload). */
  spoolFiles: number;
}

/**
 * Removes every object older than the grace period that no attachment record names (a crash
 * between writing an object and its record, or a delete whose storage call failed), and spool
 * files as old. Reads the store a batch at a time; safe to run on several replicas at once.
 */
export async function sweepOrphans(
  pool: DatabasePool,
  storage: ObjectStorage,
  spoolDir: string,
  options: SweepOptions = {},
): Promise<SweepResult> {
  const graceMs = options.graceMs ?? ORPHAN_GRACE_MS;
  const cutoff = (options.now ?? new Date()).getTime() - graceMs;
  let objects = 0;
  let batch: StoredObject[] = [];
  const flush = async () => {
    const known = await knownKeys(
      pool,
      batch.map((o) => o.key),
    );
    for (const object of batch) {
      if (!known.has(object.key)) {
        await storage.delete(object.key);
        objects += 1;
      }
    }
    batch = [];
  };
  for await (const object of storage.list('')) {
    if (object.lastModified.getTime() > cutoff) continue;
    batch.push(object);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();

  let spoolFiles = 0;
  const names = await readdir(spoolDir).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(spoolDir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && info.mtime.getTime() <= cutoff) {
      await rm(path, { force: true });
      spoolFiles += 1;
    }
  }
  await pruneTombstones(pool, TOMBSTONE_TTL_MS);
  return { objects, spoolFiles };
}

/** The periodic job: a sweep soon after start, then every `intervalMs`. */
export function startOrphanSweeper(
  pool: DatabasePool,
  storage: ObjectStorage,
  spoolDir: string,
  logger: Logger,
  intervalMs = SWEEP_INTERVAL_MS,
) {
  return startPeriodicJob(
    'attachment orphan sweep',
    async () => {
      const r = await sweepOrphans(pool, storage, spoolDir);
      if (r.objects > 0 || r.spoolFiles > 0) logger.info({ ...r }, 'removed orphaned attachment objects');
    },
    intervalMs,
    logger,
  );
}
