import type { AppNotification, NotificationType } from '../api/types';

export const NOTIFICATION_TYPE_LABELS: Record<NotificationType, string> = {
  COMMENT_MENTION: 'Mentions',
  COMMENT_REPLY: 'Replies',
  THREAD_RESOLVED: 'Resolved threads',
  WORKSPACE_INVITATION: 'Invitations',
  INVITATION_ACCEPTED: 'Accepted invitations',
  MEMBER_ROLE_CHANGED: 'Role changes',
  MEMBER_REMOVED: 'Removals',
  DOCUMENT_UPDATED: 'Watched documents',
  WEBHOOK_DISABLED: 'Disabled webhooks',
  JOB_FINISHED: 'Finished imports and exports',
};

/** Where a notification leads: the document (at its thread, for the Comments panel), else nowhere. */
export function notificationHref(notification: AppNotification): string | null {
  const { workspace, document, references } = notification;
  if (!workspace || !document) return null;
  const thread = references.commentThreadId ? `#thread-${references.commentThreadId}` : '';
  return `/w/${workspace.id}/d/${document.id}${thread}`;
}
