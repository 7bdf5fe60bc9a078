import { type CommonQueryMethods, sql } from '@wiki/db';

/**
 * The documents behind workspaces.document_count. The set makes the count exact under
 * redelivery: only a document that enters (or leaves) the set moves the counter, by one.
 */

/** Counts the documents, unless the workspace is gone (its deletion may overtake its documents' events). */
export async function countDocuments(
  db: CommonQueryMethods,
  workspaceId: string,
  documentIds: readonly string[],
): Promise<void> {
  if (documentIds.length === 0) return;
  await db.query(sql.unsafe`
    WITH added AS (
      INSERT INTO counted_documents (document_id, workspace_id)
      SELECT id, ${workspaceId}::uuid FROM unnest(${sql.array(documentIds, 'uuid')}) AS id
      WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId})
      ON CONFLICT (document_id) DO NOTHING
      RETURNING 1
    )
    UPDATE workspaces SET document_count = document_count + (SELECT count(*) FROM added)
    WHERE id = ${workspaceId} AND EXISTS (SELECT 1 FROM added)`);
}

export async function uncountDocuments(db: CommonQueryMethods, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await db.query(sql.unsafe`
    WITH removed AS (
      DELETE FROM counted_documents WHERE document_id = ANY(${sql.array(documentIds, 'uuid')})
      RETURNING workspace_id
    ), per_workspace AS (
      SELECT workspace_id, count(*) AS n FROM removed GROUP BY workspace_id
    )
    UPDATE workspaces w SET document_count = greatest(w.document_count - p.n, 0)
    FROM per_workspace p WHERE w.id = p.workspace_id`);
}
