import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const ThreadRow = z.object({
  id: z.string(),
  documentId: z.string(),
  workspaceId: z.string(),
  blockId: z.string(),
  startOffset: z.number(),
  endOffset: z.number(),
  selectedText: z.string(),
  status: z.enum(['open', 'resolved']),
  resolvedAt: z.string().nullable(),
  resolvedBy: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ThreadRow = z.infer<typeof ThreadRow>;

const columns = sql.fragment`
  id, document_id AS "documentId", workspace_id AS "workspaceId", block_id AS "blockId",
  start_offset AS "startOffset", end_offset AS "endOffset", selected_text AS "selectedText",
  status, resolved_at AS "resolvedAt", resolved_by AS "resolvedBy", created_by AS "createdBy",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface NewThread {
  id: string;
  documentId: string;
  workspaceId: string;
  blockId: string;
  startOffset: number;
  endOffset: number;
  selectedText: string;
  createdBy: string;
}

export function insertThread(db: CommonQueryMethods, t: NewThread): Promise<ThreadRow> {
  return db.one(sql.type(ThreadRow)`
    INSERT INTO comment_threads (id, document_id, workspace_id, block_id, start_offset, end_offset, selected_text, status, created_by)
    VALUES (${t.id}, ${t.documentId}, ${t.workspaceId}, ${t.blockId}, ${t.startOffset}, ${t.endOffset}, ${t.selectedText}, 'open', ${t.createdBy})
    RETURNING ${columns}`);
}

/** `lock` takes a row lock so that concurrent changes to one thread happen one after another. */
export function findThread(db: CommonQueryMethods, id: string, lock = false): Promise<ThreadRow | null> {
  return db.maybeOne(sql.type(ThreadRow)`
    SELECT ${columns} FROM comment_threads WHERE id = ${id} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** A document's threads, oldest first; `status` null means all of them. */
export function listThreads(
  db: CommonQueryMethods,
  documentId: string,
  status: 'open' | 'resolved' | null,
): Promise<readonly ThreadRow[]> {
  const filter = status ? sql.fragment`AND status = ${status}` : sql.fragment``;
  return db.any(sql.type(ThreadRow)`
    SELECT ${columns} FROM comment_threads WHERE document_id = ${documentId} ${filter}
    ORDER BY created_at, seq`);
}

export function setThreadStatus(
  db: CommonQueryMethods,
  id: string,
  status: 'open' | 'resolved',
  actorId: string,
): Promise<ThreadRow> {
  const resolution =
    status === 'resolved'
      ? sql.fragment`resolved_at = now(), resolved_by = ${actorId}`
      : sql.fragment`resolved_at = NULL, resolved_by = NULL`;
  return db.one(sql.type(ThreadRow)`
    UPDATE comment_threads SET status = ${status}, ${resolution}, updated_at = now()
    WHERE id = ${id} RETURNING ${columns}`);
}

/** Marks activity in the thread (a comment added, edited or deleted). */
export async function touchThread(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE comment_threads SET updated_at = now() WHERE id = ${id}`);
}

/** Deletes the thread; its comments go with it (foreign key ON DELETE CASCADE). */
export async function deleteThread(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM comment_threads WHERE id = ${id}`);
}

export async function deleteThreadsOfDocuments(
  db: CommonQueryMethods,
  documentIds: readonly string[],
): Promise<number> {
  if (documentIds.length === 0) return 0;
  const result = await db.query(
    sql.unsafe`DELETE FROM comment_threads WHERE document_id = ANY(${sql.array(documentIds, 'uuid')})`,
  );
  return result.rowCount;
}

export async function deleteThreadsOfWorkspace(db: CommonQueryMethods, workspaceId: string): Promise<number> {
  const result = await db.query(sql.unsafe`DELETE FROM comment_threads WHERE workspace_id = ${workspaceId}`);
  return result.rowCount;
}
