import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { deleteExpired } from '../db/notifications.js';

/** Expired rows are already out of lists and counts; the sweep only reclaims their space. */
export const SWEEP_INTERVAL_MS = 60_000;
const BATCH = 1000;

/** Deletes every expired notification, a batch at a time; how many went. */
export async function sweepExpired(pool: DatabasePool): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteExpired(pool, BATCH);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

/** The periodic job: a sweep at start, then every `intervalMs`; a failed sweep is logged and tried again next time. */
export function startExpirySweeper(pool: DatabasePool, logger: Logger, intervalMs = SWEEP_INTERVAL_MS) {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = sweepExpired(pool).then(
      (n) => {
        if (n > 0) logger.info({ deleted: n }, 'deleted expired notifications');
      },
      (err) => logger.warn({ err }, 'expired notifications sweep failed'),
    );
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return Promise.resolve({
    async stop() {
      clearInterval(timer);
      await running;
    },
  });
}
