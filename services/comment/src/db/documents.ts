import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const DocumentRow = z.object({
  id: z.string(),
  workspaceId: z.string(),
  deleted: z.boolean(),
});
export type DocumentRow = z.infer<typeof DocumentRow>;

export function findDocument(db: CommonQueryMethods, id: string): Promise<DocumentRow | null> {
  return db.maybeOne(sql.type(DocumentRow)`
    SELECT id, workspace_id AS "workspaceId", deleted_at IS NOT NULL AS deleted FROM document_projection WHERE id = ${id}`);
}

/**
 * Records a live document. An event corrects the row (frequent document.updated events write
 * nothing when nothing changed); a read-through answer (`fromEvent` false) never overrides what
 * events said, above all not a deletion tombstone.
 */
export async function upsertDocument(
  db: CommonQueryMethods,
  doc: { id: string; workspaceId: string },
  fromEvent: boolean,
): Promise<void> {
  const onConflict = fromEvent
    ? sql.fragment`DO UPDATE SET workspace_id = EXCLUDED.workspace_id, updated_at = now()
        WHERE document_projection.deleted_at IS NULL AND document_projection.workspace_id <> EXCLUDED.workspace_id`
    : sql.fragment`DO NOTHING`;
  await db.query(sql.unsafe`
    INSERT INTO document_projection (id, workspace_id) VALUES (${doc.id}, ${doc.workspaceId})
    ON CONFLICT (id) ${onConflict}`);
}

/** Leaves tombstones for deleted documents (inserting them when the projection never saw them). */
export async function markDocumentsDeleted(
  db: CommonQueryMethods,
  ids: readonly string[],
  workspaceId: string | null,
): Promise<void> {
  if (ids.length === 0) return;
  if (workspaceId) {
    await db.query(sql.unsafe`
      INSERT INTO document_projection (id, workspace_id, deleted_at)
      SELECT id, ${workspaceId}, now() FROM unnest(${sql.array(ids, 'uuid')}) AS id
      ON CONFLICT (id) DO UPDATE SET deleted_at = COALESCE(document_projection.deleted_at, now()), updated_at = now()`);
  } else {
    await db.query(sql.unsafe`
      UPDATE document_projection SET deleted_at = COALESCE(deleted_at, now()), updated_at = now()
      WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  }
}

export async function markWorkspaceDeleted(db: CommonQueryMethods, workspaceId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE document_projection SET deleted_at = COALESCE(deleted_at, now()), updated_at = now()
    WHERE workspace_id = ${workspaceId}`);
}
