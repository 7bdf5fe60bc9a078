import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { shape } from './shape.js';

/**
 * A document that was archived itself (not hidden by an ancestor's archiving): what the archived
 * list shows and restores. `hiddenCount` is everything its archiving hid, itself included.
 */
export const ArchivedItem = shape({
  id: [z.string(), sql.fragment`d.id`],
  title: [z.string(), sql.fragment`d.title`],
  parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
  workspaceId: [z.string(), sql.fragment`d.workspace_id`],
  icon: [z.string().nullable(), sql.fragment`d.icon`],
  hiddenCount: [z.number(), sql.fragment`(SELECT count(*)::int FROM documents h WHERE h.archive_root_id = d.id)`],
  // Archiving sets it, and an archived document takes no other change until it is restored.
  updatedAt: [z.string(), sql.fragment`d.updated_at`],
});
export type ArchivedItem = z.infer<typeof ArchivedItem.row>;

/** The archive roots of a workspace, most recently archived first. */
export function listArchiveRoots(db: CommonQueryMethods, workspaceId: string, limit: number) {
  return db.any(sql.type(ArchivedItem.row)`
    SELECT ${ArchivedItem.columns} FROM documents d
    WHERE d.workspace_id = ${workspaceId} AND d.archive_root_id = d.id
    ORDER BY d.updated_at DESC, d.id
    LIMIT ${limit}`);
}
