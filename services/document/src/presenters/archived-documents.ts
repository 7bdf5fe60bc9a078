import type { ArchivedItem } from '../db/archived-documents.js';

/** An entry of the archived list. */
export function presentArchivedItem(item: ArchivedItem) {
  return {
    id: item.id,
    title: item.title,
    parentId: item.parentId,
    workspaceId: item.workspaceId,
    icon: item.icon,
    descendantCount: item.hiddenCount - 1,
    updatedAt: item.updatedAt,
  };
}
