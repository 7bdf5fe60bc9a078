import {
  type EmailMode,
  type EmailPreferences,
  NOTIFICATION_TYPES,
  type NotificationType,
  resolveEmailPreferences,
} from '@wiki/events';

/** What an unsubscribe link turns off: one notification type, or every type (`*`). */
export type UnsubscribeTarget = NotificationType | '*';

export function isUnsubscribeTarget(type: string): type is UnsubscribeTarget {
  return type === '*' || (NOTIFICATION_TYPES as readonly string[]).includes(type);
}

/** The emailNotifications patch of an unsubscribe: that type off, or all of them. */
export function unsubscribePatch(target: UnsubscribeTarget): Partial<EmailPreferences> {
  const types = target === '*' ? NOTIFICATION_TYPES : [target];
  return Object.fromEntries(types.map((type) => [type, 'off' satisfies EmailMode]));
}

/** The preferences other services act on (user.preferences_changed), as they are in effect. */
export interface NotifiedPreferences {
  notificationsEnabled: boolean;
  locale: string;
  emailNotifications: EmailPreferences;
}

export function notifiedPreferences(stored: {
  notificationsEnabled: boolean;
  locale: string;
  emailNotifications: Record<string, string>;
}): NotifiedPreferences {
  return {
    notificationsEnabled: stored.notificationsEnabled,
    locale: stored.locale,
    emailNotifications: resolveEmailPreferences(stored.emailNotifications),
  };
}

/**
 * Whether a save changed what other services are told. Compared in effect: choosing the mode a
 * type has by default changes the stored map but nothing anyone acts on.
 */
export function notifiedPreferencesDiffer(before: NotifiedPreferences, after: NotifiedPreferences): boolean {
  return (
    before.notificationsEnabled !== after.notificationsEnabled ||
    before.locale !== after.locale ||
    NOTIFICATION_TYPES.some((type) => before.emailNotifications[type] !== after.emailNotifications[type])
  );
}

/** How the unsubscribe page names a type (the web app's labels, in the words of a sentence). */
const TYPE_NAMES: Record<NotificationType, string> = {
  COMMENT_MENTION: 'mentions of you',
  COMMENT_REPLY: 'replies to your comments',
  THREAD_RESOLVED: 'resolved comment threads',
  WORKSPACE_INVITATION: 'invitations to workspaces',
  INVITATION_ACCEPTED: 'accepted invitations',
  MEMBER_ROLE_CHANGED: 'changes to your role',
  MEMBER_REMOVED: 'removals from a workspace',
  DOCUMENT_UPDATED: 'changes to documents you watch',
  WEBHOOK_DISABLED: 'disabled webhooks',
  JOB_FINISHED: 'finished imports and exports',
};

/** "e-mails about mentions of you", or "all e-mails from the wiki" for `*`. */
export function describeUnsubscribe(target: UnsubscribeTarget): string {
  return target === '*' ? 'all e-mails from the wiki' : `e-mails about ${TYPE_NAMES[target]}`;
}
