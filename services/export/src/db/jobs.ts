import { type CommonQueryMethods, type DatabasePool, sql, z } from '@wiki/db';
import { newEvent, publishInTx } from '@wiki/events';

export const JOB_KINDS = ['import', 'export'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const JobRow = z.object({
  id: z.string(),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  progressDone: z.number(),
  progressTotal: z.number(),
  params: z.record(z.unknown()),
  result: z.record(z.unknown()).nullable(),
  error: z.string().nullable(),
  ownerId: z.string(),
  workspaceId: z.string(),
  fileKey: z.string().nullable(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type JobRow = z.infer<typeof JobRow>;

const iso = (column: string) =>
  sql.fragment`to_char(${sql.identifier([column])} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS = sql.fragment`id, kind, status, progress_done AS "progressDone", progress_total AS "progressTotal",
  params, result, error, owner_id AS "ownerId", workspace_id AS "workspaceId", file_key AS "fileKey",
  ${iso('expires_at')} AS "expiresAt", ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt",
  ${iso('finished_at')} AS "finishedAt"`;

export interface NewJob {
  id: string;
  kind: JobKind;
  ownerId: string;
  workspaceId: string;
  params: Record<string, unknown>;
}

export async function insertJob(db: CommonQueryMethods, job: NewJob): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO jobs (id, kind, owner_id, workspace_id, params)
    VALUES (${job.id}, ${job.kind}, ${job.ownerId}, ${job.workspaceId}, ${sql.jsonb(job.params as never)})`);
}

export function findJob(db: CommonQueryMethods, id: string): Promise<JobRow | null> {
  return db.maybeOne(sql.type(JobRow)`SELECT ${COLUMNS} FROM jobs WHERE id = ${id}`);
}

/** Marks a queued (or re-run) job running with its total; false when it already finished (a re-run: nothing to do). */
export async function startJob(db: CommonQueryMethods, id: string, total: number): Promise<boolean> {
  const started = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE jobs SET status = 'running', progress_done = 0, progress_total = ${total}, updated_at = now()
    WHERE id = ${id} AND status IN ('queued', 'running') RETURNING id`);
  return started !== null;
}

export async function saveProgress(db: CommonQueryMethods, id: string, done: number): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE jobs SET progress_done = ${done}, updated_at = now() WHERE id = ${id} AND status = 'running'`);
}

export interface Finish {
  status: 'done' | 'failed';
  result?: Record<string, unknown>;
  error?: string;
  fileKey?: string;
  expiresAt?: Date;
}

/**
 * Writes the job's outcome once, with its job.finished event in the same transaction: false when
 * another run (a worker that was thought dead) wrote it first, and this run's outcome is dropped.
 */
export async function finishJob(pool: DatabasePool, id: string, finish: Finish): Promise<boolean> {
  return pool.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(
      z.object({
        ownerId: z.string(),
        workspaceId: z.string(),
        kind: z.enum(JOB_KINDS),
        params: z.record(z.unknown()),
      }),
    )`
      UPDATE jobs SET status = ${finish.status}, result = ${finish.result ? sql.jsonb(finish.result as never) : null},
        error = ${finish.error ?? null}, file_key = ${finish.fileKey ?? null},
        expires_at = ${finish.expiresAt ? finish.expiresAt.toISOString() : null},
        progress_done = ${finish.status === 'done' ? sql.fragment`progress_total` : sql.fragment`progress_done`},
        updated_at = now(), finished_at = now()
      WHERE id = ${id} AND status IN ('queued', 'running')
      RETURNING owner_id AS "ownerId", workspace_id AS "workspaceId", kind, params`);
    if (!row) return false;
    const documentId = typeof row.params.documentId === 'string' ? row.params.documentId : undefined;
    await publishInTx(
      tx,
      newEvent('job.finished', {
        actorId: row.ownerId,
        workspaceId: row.workspaceId,
        data: {
          id,
          kind: row.kind,
          status: finish.status,
          ownerId: row.ownerId,
          workspaceId: row.workspaceId,
          documentId,
        },
      }),
    );
    return true;
  });
}

/** Finished files past their time, a batch at a time (the sweep clears the key once the file is gone). */
export function expiredFiles(
  db: CommonQueryMethods,
  now: Date,
  limit = 100,
): Promise<readonly { id: string; fileKey: string }[]> {
  return db.any(sql.type(z.object({ id: z.string(), fileKey: z.string() }))`
    SELECT id, file_key AS "fileKey" FROM jobs
    WHERE file_key IS NOT NULL AND expires_at <= ${now.toISOString()}
    ORDER BY expires_at LIMIT ${limit}`);
}

export async function forgetFile(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE jobs SET file_key = NULL, updated_at = now() WHERE id = ${id}`);
}

/** Of the given upload keys, those an unfinished import job still holds (queued or running). */
export async function heldUploads(db: CommonQueryMethods, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ key: z.string() }))`
    SELECT params->>'uploadKey' AS key FROM jobs
    WHERE kind = 'import' AND status IN ('queued', 'running')
      AND params->>'uploadKey' = ANY(${sql.array([...keys], 'text')})`);
  return new Set(rows);
}
