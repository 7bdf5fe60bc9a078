/**
 * NotificationType (ARCHITECTURE 5.6, 5.18) and how each is e-mailed. Shared vocabulary: the
 * workspace service validates `emailNotifications` with it, the notification service applies it.
 */
export const NOTIFICATION_TYPES = [
  'COMMENT_MENTION',
  'COMMENT_REPLY',
  'THREAD_RESOLVED',
  'WORKSPACE_INVITATION',
  'INVITATION_ACCEPTED',
  'MEMBER_ROLE_CHANGED',
  'MEMBER_REMOVED',
  'DOCUMENT_UPDATED',
  'WEBHOOK_DISABLED',
  'JOB_FINISHED',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** off: never e-mailed; instant: one message each; digest: gathered into one message per DIGEST_HOURS. */
export const EMAIL_MODES = ['off', 'instant', 'digest'] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];
export type EmailPreferences = Record<NotificationType, EmailMode>;

/**
 * ARCHITECTURE 5.18: mentions and invitations at once, the rest in the digest; a finished job
 * (import, export) is not e-mailed unless asked for: its owner started it and is usually waiting.
 */
export function defaultEmailMode(type: NotificationType): EmailMode {
  if (type === 'JOB_FINISHED') return 'off';
  return type === 'COMMENT_MENTION' || type === 'WORKSPACE_INVITATION' ? 'instant' : 'digest';
}

/** Every type's mode: the stored choices over the defaults (unknown keys are dropped). */
export function resolveEmailPreferences(stored: Partial<Record<string, string>> | null | undefined): EmailPreferences {
  const resolved = {} as EmailPreferences;
  for (const type of NOTIFICATION_TYPES) {
    const mode = stored?.[type];
    resolved[type] = (EMAIL_MODES as readonly string[]).includes(mode ?? '')
      ? (mode as EmailMode)
      : defaultEmailMode(type);
  }
  return resolved;
}
