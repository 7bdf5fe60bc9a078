import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const CommentSource = z.object({
  commentId: z.string(),
  threadId: z.string(),
  documentId: z.string(),
  workspaceId: z.string(),
  content: z.string(),
  updatedAt: z.string(),
});
export type CommentSource = z.infer<typeof CommentSource>;

export interface CommentPage {
  /** One workspace's comments, or every workspace's. */
  workspaceId?: string;
  /** Exclusive: the page starts after this comment id (keyset: a page costs the same wherever it is). */
  after?: string;
  limit: number;
}

/**
 * The next comments in id order with where they hang, for rebuilding a search index. A comment
 * exists only in a thread that exists (ON DELETE CASCADE); a document whose deletion this service
 * has applied keeps a tombstone, and its comments are left out even before the purge removes them.
 */
export function commentPage(db: CommonQueryMethods, page: CommentPage): Promise<readonly CommentSource[]> {
  const conditions = [
    sql.fragment`NOT EXISTS (SELECT 1 FROM document_projection p WHERE p.id = t.document_id AND p.deleted_at IS NOT NULL)`,
  ];
  if (page.workspaceId) conditions.push(sql.fragment`t.workspace_id = ${page.workspaceId}`);
  if (page.after) conditions.push(sql.fragment`c.id > ${page.after}`);
  return db.any(sql.type(CommentSource)`
    SELECT c.id AS "commentId", c.thread_id AS "threadId", t.document_id AS "documentId",
      t.workspace_id AS "workspaceId", c.content, c.updated_at AS "updatedAt"
    FROM comments c JOIN comment_threads t ON t.id = c.thread_id
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY c.id
    LIMIT ${page.limit}`);
}
