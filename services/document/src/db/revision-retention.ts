import { type CommonQueryMethods, sql, z } from '@wiki/db';

/**
 * Retention of history (ARCHITECTURE 5.16): every revision for `keepDays`, then the last of each
 * day (UTC) for a year, named ones forever, and never a row holding its document's current
 * revision. Rows past the keep period are walked oldest first, `limit` at a time, from a cursor the
 * caller keeps, so a run does bounded work however long the history is.
 */

/** Where a walk over the rows past the keep period stands: after this (created_at, id). */
export interface RetentionCursor {
  /** created_at as Postgres wrote it (full precision, unlike the API's milliseconds). */
  createdAt: string;
  id: string;
}

export interface RetentionStep {
  /** Rows past the keep period looked at. */
  scanned: number;
  deleted: number;
  /** Where the next step goes on from; null once the walk reached the keep period. */
  next: RetentionCursor | null;
}

const Step = z.object({
  scanned: z.number(),
  deleted: z.number(),
  lastAt: z.string().nullable(),
  lastId: z.string().nullable(),
});

/**
 * One step: the next `limit` rows past the keep period (after `after`, from the start when null)
 * are looked at, and those the rule does not keep are deleted. A row is the last of its day when
 * no row of its document was made later that same day (within the keep period or not, named or
 * not). `now` fixes the periods (the tests' clock; the database's otherwise).
 */
export async function retentionStep(
  db: CommonQueryMethods,
  options: { keepDays: number; limit: number; after: RetentionCursor | null; now?: Date },
): Promise<RetentionStep> {
  const now = options.now ? sql.fragment`${options.now.toISOString()}::timestamptz` : sql.fragment`now()`;
  const after = options.after
    ? sql.fragment`AND (r.created_at, r.id) > (${options.after.createdAt}::timestamptz, ${options.after.id}::uuid)`
    : sql.fragment``;
  const step = await db.one(sql.type(Step)`
    WITH scanned AS MATERIALIZED (
      SELECT r.id, r.document_id, r.revision, r.name, r.created_at FROM document_revisions r
      WHERE r.created_at < ${now} - make_interval(days => ${options.keepDays}) ${after}
      ORDER BY r.created_at, r.id
      LIMIT ${options.limit}
    ),
    doomed AS (
      SELECT s.id FROM scanned s JOIN documents d ON d.id = s.document_id
      WHERE s.name IS NULL AND s.revision <> d.revision
        AND (s.created_at < ${now} - interval '1 year' OR EXISTS (
          SELECT 1 FROM document_revisions l
          WHERE l.document_id = s.document_id
            AND l.created_at >= s.created_at
            AND l.created_at < date_trunc('day', s.created_at, 'UTC') + interval '1 day'
            AND (l.created_at, l.revision, l.id) > (s.created_at, s.revision, s.id)))
    ),
    deleted AS (
      DELETE FROM document_revisions r USING doomed WHERE r.id = doomed.id RETURNING r.id
    ),
    last AS (SELECT created_at, id FROM scanned ORDER BY created_at DESC, id DESC LIMIT 1)
    SELECT (SELECT count(*)::int FROM scanned) AS scanned, (SELECT count(*)::int FROM deleted) AS deleted,
      (SELECT created_at::text FROM last) AS "lastAt", (SELECT id FROM last) AS "lastId"`);
  const next =
    step.scanned === options.limit && step.lastAt && step.lastId ? { createdAt: step.lastAt, id: step.lastId } : null;
  return { scanned: step.scanned, deleted: step.deleted, next };
}
