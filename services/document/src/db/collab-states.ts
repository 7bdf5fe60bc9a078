import { type CommonQueryMethods, sql, z } from '@wiki/db';

/** Stores the state as of the document's current content revision (see migration 0006). */
export async function saveCollabState(db: CommonQueryMethods, documentId: string, state: Buffer): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO collab_states (document_id, state, content_revision)
    SELECT ${documentId}, ${sql.binary(state)}, d.content_revision FROM documents d WHERE d.id = ${documentId}
    ON CONFLICT (document_id) DO UPDATE
      SET state = EXCLUDED.state, content_revision = EXCLUDED.content_revision, updated_at = now()`);
}

export interface StoredCollabState {
  /** The bytes, or null when none were saved or a later REST/MCP write made them stale. */
  state: Buffer | null;
  contentRevision: number;
}

/** The stored state when it is current, with the document's content revision; null for an unknown document. */
export function loadCollabState(db: CommonQueryMethods, documentId: string): Promise<StoredCollabState | null> {
  return db.maybeOne(sql.type(z.object({ state: z.instanceof(Buffer).nullable(), contentRevision: z.coerce.number() }))`
    SELECT CASE WHEN s.content_revision = d.content_revision THEN s.state END AS state,
           d.content_revision AS "contentRevision"
    FROM documents d LEFT JOIN collab_states s ON s.document_id = d.id
    WHERE d.id = ${documentId}`);
}

/** The document's content revision (under the caller's row lock when it holds one). */
export function contentRevisionOf(db: CommonQueryMethods, documentId: string): Promise<number | null> {
  return db.maybeOneFirst(sql.type(z.object({ contentRevision: z.coerce.number() }))`
    SELECT content_revision AS "contentRevision" FROM documents WHERE id = ${documentId}`);
}

/** The block content (a JSON string) and its revision, for the collaboration server to rebuild a room. */
export function collabContentOf(
  db: CommonQueryMethods,
  documentId: string,
): Promise<{ content: string; contentRevision: number } | null> {
  return db.maybeOne(sql.type(z.object({ content: z.string(), contentRevision: z.coerce.number() }))`
    SELECT content, content_revision AS "contentRevision" FROM documents WHERE id = ${documentId}`);
}
