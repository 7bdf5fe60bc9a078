import { type CommonQueryMethods, sql } from '@wiki/db';

/*
 * Events about one thread can arrive out of order (a failing event is retried after later ones),
 * so each row keeps the occurredAt of the last event applied to it (event_at) and an older event
 * changes nothing. A deleted thread stays as a tombstone that no later-arriving event revives:
 * thread ids are never reused, so anything heard about it after its deletion is stale.
 */

/**
 * Records a thread as open or resolved as of `eventAt`, for a document that still exists, unless
 * the row already reflects a newer event or the thread was deleted. One statement: the check and
 * the write cannot be split by another consumer's write.
 */
export async function setThreadOpen(
  db: CommonQueryMethods,
  threadId: string,
  documentId: string,
  open: boolean,
  eventAt: string,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO comment_thread_projection AS t (thread_id, document_id, is_open, event_at)
    SELECT ${threadId}, ${documentId}, ${open}, ${eventAt}::timestamptz WHERE EXISTS (SELECT 1 FROM documents WHERE id = ${documentId})
    ON CONFLICT (thread_id) DO UPDATE SET is_open = EXCLUDED.is_open, event_at = EXCLUDED.event_at, updated_at = now()
    WHERE NOT t.is_deleted AND (t.event_at IS NULL OR t.event_at <= EXCLUDED.event_at)`);
}

/**
 * Leaves a tombstone for a deleted thread (never open, never revived), whatever came before: a
 * deletion is final however old. With the document known, the tombstone is written even if no
 * earlier event about the thread has arrived yet, so that its late thread_created is ignored; the
 * tombstones go with their document (deleteDocuments, purgeWorkspace).
 */
export async function markThreadDeleted(
  db: CommonQueryMethods,
  threadId: string,
  documentId: string | null,
  eventAt: string,
): Promise<void> {
  if (documentId === null) {
    // No document to file a new row under: only a thread already known can be marked.
    await db.query(sql.unsafe`
      UPDATE comment_thread_projection SET is_deleted = true, is_open = false, event_at = greatest(event_at, ${eventAt}::timestamptz), updated_at = now()
      WHERE thread_id = ${threadId}`);
    return;
  }
  await db.query(sql.unsafe`
    INSERT INTO comment_thread_projection AS t (thread_id, document_id, is_open, is_deleted, event_at)
    SELECT ${threadId}, ${documentId}, false, true, ${eventAt}::timestamptz WHERE EXISTS (SELECT 1 FROM documents WHERE id = ${documentId})
    ON CONFLICT (thread_id) DO UPDATE SET is_deleted = true, is_open = false, event_at = greatest(t.event_at, EXCLUDED.event_at), updated_at = now()`);
}
