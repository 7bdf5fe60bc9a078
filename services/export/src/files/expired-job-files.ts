import type { DatabasePool } from '@wiki/db';
import { startPeriodicJob } from '@wiki/service';
import type { ObjectStorage } from '@wiki/storage';
import { expiredFiles, forgetFile } from '../db/jobs.js';

/**
 * Removes the zips of finished jobs whose download time is over (EXPORT_DOWNLOAD_TTL_MS), then
 * forgets their keys (the download answers 410 from then on). Replicas sweeping at once delete the
 * same files twice, which is harmless: a missing object is not an error.
 */
export async function sweepExpiredJobFiles(
  pool: DatabasePool,
  storage: ObjectStorage,
  now = new Date(),
): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await expiredFiles(pool, now);
    for (const { id, fileKey } of batch) {
      await storage.delete(fileKey);
      await forgetFile(pool, id);
      removed += 1;
    }
    if (batch.length === 0) return removed;
  }
}

export function startJobFileSweeper(
  pool: DatabasePool,
  storage: ObjectStorage,
  intervalMs: number,
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void },
) {
  return startPeriodicJob(
    'export job file expiry sweep',
    async () => {
      const removed = await sweepExpiredJobFiles(pool, storage);
      if (removed) logger.info({ removed }, 'removed expired job files');
    },
    intervalMs,
    logger,
  );
}
