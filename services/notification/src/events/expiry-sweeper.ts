import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import { deleteExpired } from '../db/notifications.js';

/** Expired rows are already out of lists and counts; the sweep only reclaims their space. */
export const SWEEP_INTERVAL_MS = 60_000;
const BATCH = 1000;

/**
 * Deletes every expired notification, a batch at a time; how many went. `notify` hears whose went
 * after each batch: their open streams send the count, which fell when the notification expired
 * (so a stream learns of an expiry up to one sweep interval late).
 */
export async function sweepExpired(
  pool: DatabasePool,
  notify: (userIds: Iterable<string>) => void = () => {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const { deleted, userIds } = await deleteExpired(pool, BATCH);
    notify(userIds);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

/** The periodic job: a sweep at start, then every `intervalMs`. */
export function startExpirySweeper(
  pool: DatabasePool,
  logger: Logger,
  intervalMs = SWEEP_INTERVAL_MS,
  notify: (userIds: Iterable<string>) => void = () => {},
) {
  return startPeriodicJob(
    'expired notifications sweep',
    async () => {
      const n = await sweepExpired(pool, notify);
      if (n > 0) logger.info({ deleted: n }, 'deleted expired notifications');
    },
    intervalMs,
    logger,
  );
}
