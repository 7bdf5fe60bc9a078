import type { DatabasePool } from '@wiki/db';
import type { NotificationType } from '@wiki/events';
import { fetchInvitationLink, fetchUserMailbox, type ServiceClient } from '@wiki/service-client';
import { findMail, findNotification, type MailRow, markMailDone, notificationsOfDigest } from '../db/mail.js';
import type { NotificationRow } from '../db/notifications.js';
import { mailPreferencesOf } from '../db/preferences.js';
import { catalogueFor } from './catalogue.js';
import {
  type AboutNotification,
  digestMail,
  invitationMail,
  type Mail,
  notificationMail,
  type Recipient,
} from './compose.js';
import type { MailTransport } from './transport.js';

export interface DeliverDeps {
  pool: DatabasePool;
  /** The workspace service: addresses (with whether they are verified) and invitation links. */
  peers: ServiceClient;
  transport: MailTransport;
  /** The web app's public address, the unsubscribe tokens' secret, the digest's length. */
  links: { base: string; secret: string; hours: number };
}

/** A message that is not sent after all, and why (stored as the row's outcome). */
class Dropped {
  constructor(readonly reason: string) {}
}

/**
 * Sends the outbox row `mailId` (a queue job): composed now, from what is current (names as the
 * notification stored them, the recipient's address, mode and locale), then marked sent. A row
 * already sent or gone is done; anything that throws (SMTP or the workspace service away) fails the
 * job, which the queue tries again.
 */
export async function deliverMail(deps: DeliverDeps, mailId: string): Promise<'sent' | 'dropped' | 'done before'> {
  const row = await findMail(deps.pool, mailId);
  if (!row || row.sentAt) return 'done before';
  const mail = await compose(deps, row);
  if (mail instanceof Dropped) {
    await markMailDone(deps.pool, row.id, mail.reason);
    return 'dropped';
  }
  await deps.transport.send(mail, row.key);
  await markMailDone(deps.pool, row.id, null);
  return 'sent';
}

function compose(deps: DeliverDeps, row: MailRow): Promise<Mail | Dropped> {
  switch (row.kind) {
    case 'notification':
      return composeNotification(deps, row);
    case 'digest':
      return composeDigest(deps, row);
    case 'invitation':
      return composeInvitation(deps, row);
  }
}

/**
 * Only an address the identity provider vouched for is e-mailed: an unverified one may belong to
 * someone else (docs/DECISIONS.md, "E-mail").
 */
async function recipientOf(deps: DeliverDeps, userId: string): Promise<Recipient | Dropped> {
  const mailbox = await fetchUserMailbox(deps.peers, userId);
  if (!mailbox) return new Dropped('unknown user');
  if (!mailbox.emailVerified) return new Dropped('address not verified');
  return { userId, email: mailbox.email };
}

const about = (n: NotificationRow): AboutNotification => ({ ...n, type: n.type as NotificationType });

async function composeNotification(deps: DeliverDeps, row: MailRow): Promise<Mail | Dropped> {
  const n = row.notificationId ? await findNotification(deps.pool, row.notificationId) : null;
  if (!n) return new Dropped('notification gone');
  const prefs = await mailPreferencesOf(deps.pool, n.userId);
  // The choice when it is sent counts: an unsubscribe in between stops it.
  if (!prefs.enabled || prefs.modes[n.type as NotificationType] !== 'instant') return new Dropped('not wanted now');
  const to = await recipientOf(deps, n.userId);
  if (to instanceof Dropped) return to;
  return notificationMail(about(n), to, catalogueFor(prefs.locale), deps.links);
}

async function composeDigest(deps: DeliverDeps, row: MailRow): Promise<Mail | Dropped> {
  if (!row.userId) return new Dropped('no user');
  const prefs = await mailPreferencesOf(deps.pool, row.userId);
  if (!prefs.enabled) return new Dropped('not wanted now');
  const items: (AboutNotification & { link?: string })[] = [];
  for (const n of await notificationsOfDigest(deps.pool, row.key)) {
    // What the person has read (or dismissed) in the app is no news; a type turned off is not wanted.
    if (n.status !== 'UNREAD' || prefs.modes[n.type as NotificationType] === 'off') continue;
    if (n.type === 'WORKSPACE_INVITATION') {
      const invitation = n.invitationId ? await fetchInvitationLink(deps.peers, n.invitationId) : null;
      if (!invitation) continue; // answered, cancelled or expired since
      items.push({ ...about(n), link: invitation.link });
    } else items.push(about(n));
  }
  if (items.length === 0) return new Dropped('nothing left to tell');
  const to = await recipientOf(deps, row.userId);
  if (to instanceof Dropped) return to;
  return digestMail(items, to, catalogueFor(prefs.locale), deps.links);
}

async function composeInvitation(deps: DeliverDeps, row: MailRow): Promise<Mail | Dropped> {
  const invitationId = typeof row.payload.invitationId === 'string' ? row.payload.invitationId : null;
  const invitation = invitationId ? await fetchInvitationLink(deps.peers, invitationId) : null;
  if (!invitation) return new Dropped('invitation no longer open');
  let locale: string | null = null;
  if (row.userId) {
    const prefs = await mailPreferencesOf(deps.pool, row.userId);
    if (!prefs.enabled || prefs.modes.WORKSPACE_INVITATION !== 'instant') return new Dropped('not wanted now');
    locale = prefs.locale;
  }
  return invitationMail(invitation, row.userId, catalogueFor(locale), deps.links);
}
