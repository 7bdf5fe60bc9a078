/** NotificationType (ARCHITECTURE 5.6, 5.18): shared with the workspace service's e-mail preferences. */
import type { NotificationType } from '@wiki/events';

export { NOTIFICATION_TYPES, type NotificationType } from '@wiki/events';

/**
 * UNREAD → READ → ACTIONED; DISMISSED hides a notification from lists and counts. A step never
 * goes back (marking an ACTIONED one read leaves it ACTIONED).
 */
export const NOTIFICATION_STATUSES = ['UNREAD', 'READ', 'ACTIONED', 'DISMISSED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** What a producer hands to the store for one recipient. */
export interface NewNotification {
  userId: string;
  type: NotificationType;
  title: string;
  message: string;
  actionable?: boolean;
  actorId: string | null;
  workspaceId: string | null;
  documentId?: string | null;
  invitationId?: string | null;
  commentThreadId?: string | null;
  metadata?: Record<string, unknown>;
  expiresAt?: string | null;
  /** Unique per recipient: the event id, or `invitation:<id>` (see the migration). */
  sourceKey: string;
}

/** Names as the projections hold them when the notification is made. */
export interface Names {
  actorName: string;
  workspaceName: string;
  documentTitle: string;
}

/** Title and message of each type, in English, from the names current at creation. */
export function wording(
  type: NotificationType,
  names: Names,
  extra: { role?: string; job?: { kind: 'import' | 'export'; status: 'done' | 'failed' } } = {},
) {
  const actor = names.actorName || 'Someone';
  const workspace = names.workspaceName || 'a workspace';
  const document = names.documentTitle || 'a document';
  switch (type) {
    case 'COMMENT_MENTION':
      return { title: 'You were mentioned', message: `${actor} mentioned you in a comment on "${document}".` };
    case 'COMMENT_REPLY':
      return { title: 'New reply', message: `${actor} replied in a thread on "${document}".` };
    case 'THREAD_RESOLVED':
      return { title: 'Thread resolved', message: `${actor} resolved a thread on "${document}".` };
    case 'WORKSPACE_INVITATION':
      return {
        title: 'Workspace invitation',
        message: `${actor} invited you to join "${workspace}" as ${roleName(extra.role)}.`,
      };
    case 'INVITATION_ACCEPTED':
      return { title: 'Invitation accepted', message: `${actor} accepted your invitation to "${workspace}".` };
    case 'MEMBER_ROLE_CHANGED':
      return { title: 'Your role changed', message: `Your role in "${workspace}" is now ${roleName(extra.role)}.` };
    case 'MEMBER_REMOVED':
      return { title: 'Removed from a workspace', message: `You were removed from "${workspace}".` };
    case 'DOCUMENT_UPDATED':
      return { title: 'Document updated', message: `${actor} edited "${document}", which you watch.` };
    case 'WEBHOOK_DISABLED':
      return {
        title: 'Webhook disabled',
        message: `A webhook of "${workspace}" failed for three days and was disabled.`,
      };
    case 'JOB_FINISHED': {
      const what = extra.job?.kind === 'import' ? 'import' : 'export';
      const from = names.documentTitle ? ` of "${names.documentTitle}"` : ` in "${workspace}"`;
      return extra.job?.status === 'failed'
        ? { title: `The ${what} failed`, message: `Your ${what}${from} failed.` }
        : { title: `The ${what} is ready`, message: `Your ${what}${from} has finished.` };
    }
  }
}

function roleName(role: string | undefined): string {
  if (!role) return 'a member';
  const lower = role.toLowerCase();
  return `${/^[aeiou]/.test(lower) ? 'an' : 'a'} ${lower}`;
}
