import type { NotificationRow } from '../db/notifications.js';

/** NotificationResponse (spec 2). */
export function presentNotification(row: NotificationRow) {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    title: row.title,
    message: row.message,
    actionable: row.actionable,
    actor: row.actorId ? { id: row.actorId, name: row.actorName ?? '', avatar: row.actorAvatar } : null,
    workspace: row.workspaceId ? { id: row.workspaceId, name: row.workspaceName ?? '' } : null,
    document: row.documentId ? { id: row.documentId, title: row.documentTitle ?? '' } : null,
    references: { invitationId: row.invitationId, commentThreadId: row.commentThreadId },
    metadata: row.metadata,
    createdAt: row.createdAt,
    readAt: row.readAt,
    expiresAt: row.expiresAt,
  };
}
