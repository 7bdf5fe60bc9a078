import { type DatabasePool, withAdvisoryLock } from '@wiki/db';
import { startPeriodicJob } from '@wiki/service';
import type { ObjectStorage } from '@wiki/storage';
import { EXPORT_PREFIX } from '../queue/jobs.js';

/** The advisory lock (in the export database) that lets one replica at a time sweep the files. */
export const EXPIRY_SWEEP_LOCK = 'export.expired-files';

export interface ExpirySweepOptions {
  ttlMs: number;
  now?: Date;
}

/**
 * Removes finished export files older than `ttlMs`: those whose request went away before it could
 * send them (a timeout, a client gone, an API replica that died). A file that was sent is deleted
 * at once by its request. The listing is streamed; one replica sweeps at a time (null: another was).
 */
export async function sweepExpiredFiles(
  pool: DatabasePool,
  storage: ObjectStorage,
  options: ExpirySweepOptions,
): Promise<number | null> {
  const cutoff = (options.now ?? new Date()).getTime() - options.ttlMs;
  const swept = await withAdvisoryLock(pool, EXPIRY_SWEEP_LOCK, async () => {
    let removed = 0;
    for await (const object of storage.list(EXPORT_PREFIX)) {
      if (object.lastModified.getTime() > cutoff) continue;
      await storage.delete(object.key);
      removed += 1;
    }
    return removed;
  });
  return swept ? swept.value : null;
}

/** The periodic job: a sweep soon after start, then every `intervalMs`. */
export function startExpiredFileSweeper(
  pool: DatabasePool,
  storage: ObjectStorage,
  options: { ttlMs: number; intervalMs: number },
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void },
) {
  return startPeriodicJob(
    'export file expiry sweep',
    async () => {
      const removed = await sweepExpiredFiles(pool, storage, { ttlMs: options.ttlMs });
      if (removed) logger.info({ removed }, 'removed expired export files');
    },
    options.intervalMs,
    logger,
  );
}
