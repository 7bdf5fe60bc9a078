import { type DatabasePool, withAdvisoryLock } from '@wiki/db';
import { startPeriodicJob } from '@wiki/service';
import type { ObjectStorage } from '@wiki/storage';
import { heldUploads } from '../db/jobs.js';
import { IMPORT_UPLOAD_PREFIX } from '../import-job/params.js';

/** The advisory lock (in the export database) that lets one replica at a time sweep the uploads. */
export const UPLOAD_SWEEP_LOCK = 'export.orphan-uploads';

/**
 * An upload is stored before its job row is written (routes/import.ts): one younger than this
 * may be waiting for its row and is left alone.
 */
export const UPLOAD_GRACE_MS = 60 * 60_000;

const PAGE = 100;

/**
 * Removes import uploads no unfinished job holds: the job finished (its runner's cleanUp did not
 * happen, a process killed between the outcome and the delete) or its row is gone. Uploads
 * younger than `graceMs` are kept. One replica sweeps at a time (null: another was).
 */
export async function sweepOrphanUploads(
  pool: DatabasePool,
  storage: ObjectStorage,
  options: { graceMs?: number; now?: Date } = {},
): Promise<number | null> {
  const cutoff = (options.now ?? new Date()).getTime() - (options.graceMs ?? UPLOAD_GRACE_MS);
  const swept = await withAdvisoryLock(pool, UPLOAD_SWEEP_LOCK, async () => {
    let removed = 0;
    const sweep = async (keys: string[]) => {
      const held = await heldUploads(pool, keys);
      for (const key of keys) {
        if (held.has(key)) continue;
        await storage.delete(key);
        removed += 1;
      }
    };
    let page: string[] = [];
    for await (const object of storage.list(IMPORT_UPLOAD_PREFIX)) {
      if (object.lastModified.getTime() > cutoff) continue;
      page.push(object.key);
      if (page.length === PAGE) {
        await sweep(page);
        page = [];
      }
    }
    await sweep(page);
    return removed;
  });
  return swept ? swept.value : null;
}

export function startOrphanUploadSweeper(
  pool: DatabasePool,
  storage: ObjectStorage,
  intervalMs: number,
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void },
) {
  return startPeriodicJob(
    'import upload sweep',
    async () => {
      const removed = await sweepOrphanUploads(pool, storage);
      if (removed) logger.info({ removed }, 'removed import uploads no job holds');
    },
    intervalMs,
    logger,
  );
}
