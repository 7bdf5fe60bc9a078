import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import { assignDigestItems, insertMail, usersWithDueDigests } from '../db/mail.js';

/** How often each replica looks for digests that are due (windows are an hour or longer). */
export const DIGEST_CHECK_MS = 60_000;

/**
 * Makes the digests due at `now`: time is cut into windows of `windowMs` (from the epoch, UTC),
 * and in the window that holds `now` each user gets one digest (key `digest:<user>:<window>`) of
 * their items made before it began; items of the current window wait for the next. The key is
 * unique, so of two replicas (or two rounds) in one window only the first makes it and takes the
 * items. How many digests it made.
 */
export async function gatherDigests(pool: DatabasePool, windowMs: number, now: Date): Promise<number> {
  const window = Math.floor(now.getTime() / windowMs);
  const start = new Date(window * windowMs);
  let made = 0;
  for (const userId of await usersWithDueDigests(pool, start)) {
    const key = `digest:${userId}:${window}`;
    await pool.transaction(async (tx) => {
      if (!(await insertMail(tx, { key, kind: 'digest', userId }))) return;
      await assignDigestItems(tx, userId, key, start);
      made += 1;
    });
  }
  return made;
}

/** The periodic job: digests that are due, then a kick so they are queued at once. */
export function startDigestJob(pool: DatabasePool, hours: number, kick: () => void, logger: Logger) {
  return startPeriodicJob(
    'e-mail digests',
    async () => {
      const made = await gatherDigests(pool, hours * 3_600_000, new Date());
      if (made > 0) {
        logger.info({ digests: made }, 'e-mail digests made');
        kick();
      }
    },
    DIGEST_CHECK_MS,
    logger,
  );
}
