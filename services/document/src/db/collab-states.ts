import { type CommonQueryMethods, sql, z } from '@wiki/db';

export async function saveCollabState(db: CommonQueryMethods, documentId: string, state: Buffer): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO collab_states (document_id, state) VALUES (${documentId}, ${sql.binary(state)})
    ON CONFLICT (document_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`);
}

/** The stored bytes, or null when the collaboration server never saved any. */
export function loadCollabState(db: CommonQueryMethods, documentId: string): Promise<Buffer | null> {
  return db.maybeOneFirst(sql.type(z.object({ state: z.instanceof(Buffer) }))`
    SELECT state FROM collab_states WHERE document_id = ${documentId}`);
}
