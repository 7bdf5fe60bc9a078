import { type CommonQueryMethods, sql, withAdvisoryLock, z } from '@wiki/db';

/** The scope of a run over every workspace (a workspace's own run is keyed by its id). */
export const ALL_WORKSPACES = '*';

/** How far a reindex of one scope got (migrations/0003_reindex_progress.sql). */
export const ReindexProgress = z.object({
  scope: z.string(),
  lastId: z.string(),
  startedAt: z.string(),
  batches: z.number(),
  indexed: z.number(),
  removed: z.number(),
});
export type ReindexProgress = z.infer<typeof ReindexProgress>;

export function findProgress(db: CommonQueryMethods, scope: string): Promise<ReindexProgress | null> {
  return db.maybeOne(sql.type(ReindexProgress)`
    SELECT scope, last_id::text AS "lastId", started_at AS "startedAt", batches, indexed, removed
      FROM reindex_progress WHERE scope = ${scope}`);
}

export async function saveProgress(db: CommonQueryMethods, progress: ReindexProgress): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO reindex_progress (scope, last_id, started_at, batches, indexed, removed)
    VALUES (${progress.scope}, ${progress.lastId}, ${progress.startedAt}, ${progress.batches},
            ${progress.indexed}, ${progress.removed})
    ON CONFLICT (scope) DO UPDATE SET last_id = EXCLUDED.last_id, updated_at = now(),
      batches = EXCLUDED.batches, indexed = EXCLUDED.indexed, removed = EXCLUDED.removed`);
}

export async function clearProgress(db: CommonQueryMethods, scope: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM reindex_progress WHERE scope = ${scope}`);
}

/**
 * Runs `work` while holding the scope's session advisory lock on one connection, so that two runs
 * of the same scope never interleave their checkpoints; null when another run holds it. The lock
 * is released before the connection goes back to the pool (pools here never reset sessions), and
 * by the server itself if the connection dies.
 */
export function withScopeLock<T>(
  pool: Parameters<typeof withAdvisoryLock>[0],
  scope: string,
  work: () => Promise<T>,
): Promise<{ value: T } | null> {
  return withAdvisoryLock(pool, `reindex:${scope}`, work);
}
