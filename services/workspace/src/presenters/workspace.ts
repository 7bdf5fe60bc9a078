import type { WorkspaceRow } from '../db/workspaces.js';

/** WorkspaceResponse of the spec. */
export function presentWorkspace(row: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    icon: row.icon,
    color: row.color,
    ownerId: row.ownerId,
    isDefault: row.isDefault,
    isArchived: row.isArchived,
    documentCount: row.documentCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
