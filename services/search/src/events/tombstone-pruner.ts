import { type DatabasePool, sql } from '@wiki/db';
import { type Logger, STREAM_MAX_AGE_MS } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';

/**
 * A tombstone keeps a late `document.created`/`updated` from bringing a deleted document back.
 * No event can arrive later than the stream keeps it, so twice that age is a safe horizon (the
 * second half covers an outbox that held the event back during an outage).
 */
export const TOMBSTONE_MAX_AGE_MS = 2 * STREAM_MAX_AGE_MS;
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

/** Deletes tombstones older than `maxAgeMs`, a batch per statement; how many went. */
export async function pruneTombstones(pool: DatabasePool, maxAgeMs = TOMBSTONE_MAX_AGE_MS): Promise<number> {
  const cutoff = new Date(Date.now() - maxAgeMs).toISOString();
  let total = 0;
  for (;;) {
    const result = await pool.query(sql.unsafe`
      DELETE FROM search_removed_documents WHERE id IN (
        SELECT id FROM search_removed_documents WHERE removed_at < ${cutoff}::timestamptz LIMIT ${BATCH}
      )`);
    total += result.rowCount;
    if (result.rowCount < BATCH) return total;
  }
}

/** The periodic job: a prune at start, then every `intervalMs`. */
export function startTombstonePruner(pool: DatabasePool, logger: Logger, intervalMs = PRUNE_INTERVAL_MS) {
  return startPeriodicJob(
    'search tombstone prune',
    async () => {
      const n = await pruneTombstones(pool);
      if (n > 0) logger.info({ pruned: n }, 'pruned search tombstones past the event horizon');
    },
    intervalMs,
    logger,
  );
}
