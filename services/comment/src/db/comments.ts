import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const CommentRow = z.object({
  id: z.string(),
  threadId: z.string(),
  authorId: z.string(),
  content: z.string(),
  isEdited: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CommentRow = z.infer<typeof CommentRow>;

const columns = sql.fragment`
  id, thread_id AS "threadId", author_id AS "authorId", content, is_edited AS "isEdited",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export function insertComment(
  db: CommonQueryMethods,
  c: { id: string; threadId: string; authorId: string; content: string },
): Promise<CommentRow> {
  return db.one(sql.type(CommentRow)`
    INSERT INTO comments (id, thread_id, author_id, content)
    VALUES (${c.id}, ${c.threadId}, ${c.authorId}, ${c.content})
    RETURNING ${columns}`);
}

export function findComment(db: CommonQueryMethods, id: string, lock = false): Promise<CommentRow | null> {
  return db.maybeOne(sql.type(CommentRow)`
    SELECT ${columns} FROM comments WHERE id = ${id} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** The comments of the given threads, oldest first within each thread. */
export function listComments(db: CommonQueryMethods, threadIds: readonly string[]): Promise<readonly CommentRow[]> {
  if (threadIds.length === 0) return Promise.resolve([]);
  return db.any(sql.type(CommentRow)`
    SELECT ${columns} FROM comments WHERE thread_id = ANY(${sql.array(threadIds, 'uuid')})
    ORDER BY thread_id, created_at, seq`);
}

export function updateCommentContent(db: CommonQueryMethods, id: string, content: string): Promise<CommentRow> {
  return db.one(sql.type(CommentRow)`
    UPDATE comments SET content = ${content}, is_edited = true, updated_at = now()
    WHERE id = ${id} RETURNING ${columns}`);
}

export async function deleteComment(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM comments WHERE id = ${id}`);
}

/** Authors of a thread's comments in order of their first comment (for participants). */
export async function commentAuthors(db: CommonQueryMethods, threadId: string): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ authorId: z.string() }))`
    SELECT author_id AS "authorId" FROM comments WHERE thread_id = ${threadId}
    GROUP BY author_id ORDER BY min(created_at), min(seq)`);
  return rows.map((r) => r.authorId);
}

export async function countComments(db: CommonQueryMethods, threadId: string): Promise<number> {
  return db.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM comments WHERE thread_id = ${threadId}`,
  );
}
