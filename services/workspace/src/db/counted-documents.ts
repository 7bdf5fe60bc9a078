import { type CommonQueryMethods, sql, z } from '@wiki/db';

/**
 * The documents behind workspaces.document_count. The count is recomputed from this set,
 * so adding a counted document twice or removing an uncounted one changes nothing.
 */

/** Counts the documents, unless the workspace is gone (its deletion may overtake its documents' events). */
export async function countDocuments(db: CommonQueryMethods, workspaceId: string, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO counted_documents (document_id, workspace_id)
    SELECT id, ${workspaceId}::uuid FROM unnest(${sql.array(documentIds, 'uuid')}) AS id
    WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId})
    ON CONFLICT (document_id) DO NOTHING`);
  await recount(db, [workspaceId]);
}

export async function uncountDocuments(db: CommonQueryMethods, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  const workspaces = await db.anyFirst(sql.type(z.object({ workspaceId: z.string() }))`
    DELETE FROM counted_documents WHERE document_id = ANY(${sql.array(documentIds, 'uuid')})
    RETURNING workspace_id AS "workspaceId"`);
  await recount(db, [...new Set(workspaces)]);
}

async function recount(db: CommonQueryMethods, workspaceIds: readonly string[]): Promise<void> {
  if (workspaceIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE workspaces w SET document_count = (SELECT count(*) FROM counted_documents c WHERE c.workspace_id = w.id)
    WHERE w.id = ANY(${sql.array(workspaceIds, 'uuid')})`);
}
