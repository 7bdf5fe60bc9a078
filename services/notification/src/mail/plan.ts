import type { CommonQueryMethods } from '@wiki/db';
import type { NotificationType } from '@wiki/events';
import { insertDigestItem, insertMail } from '../db/mail.js';
import { mailPreferencesOf } from '../db/preferences.js';
import { mailPlanned } from './after-commit.js';

/**
 * What e-mail a new notification makes, decided in the transaction that stored it (so a
 * redelivered event, which stores nothing, plans nothing): by the recipient's mode for its type,
 * one message now (`instant`), an item of their next digest (`digest`), or nothing (`off`).
 * An invitation's instant message is the invitation's own (planInvitationMail, with its link).
 */
export async function planNotificationMail(
  db: CommonQueryMethods,
  n: { id: string; userId: string; type: NotificationType },
): Promise<void> {
  const prefs = await mailPreferencesOf(db, n.userId);
  if (!prefs.enabled) return;
  const mode = prefs.modes[n.type];
  if (mode === 'digest') return insertDigestItem(db, n.id, n.userId);
  if (mode === 'instant' && n.type !== 'WORKSPACE_INVITATION') {
    const key = `notification:${n.id}`;
    if (await insertMail(db, { key, kind: 'notification', userId: n.userId, notificationId: n.id })) mailPlanned(db);
  }
}

export interface InvitationMail {
  eventId: string;
  invitationId: string;
  email: string;
  /** The invited address's user, when someone has signed in with it: their preferences apply. */
  inviteeUserId: string | null;
}

/**
 * Every invitation (and each resend, a new event) is e-mailed to its address with its link, unless
 * the invitee is a user who turned notifications off or does not want invitations at once.
 */
export async function planInvitationMail(db: CommonQueryMethods, invitation: InvitationMail): Promise<void> {
  if (invitation.inviteeUserId) {
    const prefs = await mailPreferencesOf(db, invitation.inviteeUserId);
    if (!prefs.enabled || prefs.modes.WORKSPACE_INVITATION !== 'instant') return;
  }
  const made = await insertMail(db, {
    key: `invitation:${invitation.eventId}`,
    kind: 'invitation',
    userId: invitation.inviteeUserId,
    payload: { invitationId: invitation.invitationId, email: invitation.email },
  });
  if (made) mailPlanned(db);
}
