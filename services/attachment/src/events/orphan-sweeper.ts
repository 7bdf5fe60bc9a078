import type { Dir } from 'node:fs';
import { opendir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DatabasePool, withAdvisoryLock } from '@wiki/db';
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
  /** Objects removed because no record names them; null when another replica was sweeping the store. */
  objects: number | null;
  /** Spool files left by uploads that never finished (a crash mid-upload). */
  spoolFiles: number;
}

/** Attachment objects live under this prefix; others in the same store (exports/) are not ours to sweep. */
export const ATTACHMENT_PREFIX = 'workspaces/';
/** The advisory lock (in this service's database) that lets one replica at a time sweep the store. */
export const SWEEP_LOCK = 'attachment.orphan-sweep';

/**
 * Removes every object older than the grace period that no attachment record names (a crash
 * between writing an object and its record, or a delete whose storage call failed), and spool
 * files as old. The store is read as a stream, a batch of keys checked against the records at a
 * time, so memory stays flat whatever its size; one replica at a time sweeps it (the others find
 * the lock taken and leave it), while every replica sweeps its own spool folder.
 */
export async function sweepOrphans(
  pool: DatabasePool,
  storage: ObjectStorage,
  spoolDir: string,
  options: SweepOptions = {},
): Promise<SweepResult> {
  const graceMs = options.graceMs ?? ORPHAN_GRACE_MS;
  const cutoff = (options.now ?? new Date()).getTime() - graceMs;
  const swept = await withAdvisoryLock(pool, SWEEP_LOCK, async () => {
    const objects = await sweepStore(pool, storage, cutoff);
    await pruneTombstones(pool, TOMBSTONE_TTL_MS);
    return objects;
  });
  return { objects: swept ? swept.value : null, spoolFiles: await sweepSpool(spoolDir, cutoff) };
}

async function sweepStore(pool: DatabasePool, storage: ObjectStorage, cutoff: number): Promise<number> {
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
  for await (const object of storage.list(ATTACHMENT_PREFIX)) {
    if (object.lastModified.getTime() > cutoff) continue;
    batch.push(object);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();
  return objects;
}

/** Spool files of this replica older than the cutoff (the folder only holds uploads in flight). */
async function sweepSpool(spoolDir: string, cutoff: number): Promise<number> {
  let removed = 0;
  let dir: Dir;
  try {
    dir = await opendir(spoolDir);
  } catch {
    return 0; // no upload has made it yet
  }
  for await (const entry of dir) {
    if (!entry.isFile()) continue;
    const path = join(spoolDir, entry.name);
    const info = await stat(path).catch(() => null);
    if (info && info.mtime.getTime() <= cutoff) {
      await rm(path, { force: true });
      removed += 1;
    }
  }
  return removed;
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
      if ((r.objects ?? 0) > 0 || r.spoolFiles > 0) logger.info({ ...r }, 'removed orphaned attachment objects');
    },
    intervalMs,
    logger,
  );
}
