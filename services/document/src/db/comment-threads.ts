import { type CommonQueryMethods, sql } from '@wiki/db';

/** Records a thread as open or resolved, for a document that still exists. */
export async function setThreadOpen(db: CommonQueryMethods, threadId: string, documentId: string, open: boolean): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO comment_threads (thread_id, document_id, is_open)
    SELECT ${threadId}, ${documentId}, ${open} WHERE EXISTS (SELECT 1 FROM documents WHERE id = ${documentId})
    ON CONFLICT (thread_id) DO UPDATE SET is_open = EXCLUDED.is_open, updated_at = now()`);
}

export async function forgetThread(db: CommonQueryMethods, threadId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM comment_threads WHERE thread_id = ${threadId}`);
}
