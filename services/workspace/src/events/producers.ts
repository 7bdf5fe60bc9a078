import type { CommonQueryMethods } from '@wiki/db';
import { newEvent, publishInTx } from '@wiki/events';
import type { InvitationView } from '../db/invitations.js';
import type { MemberRow } from '../db/members.js';
import type { UserRow } from '../db/users.js';
import type { WorkspaceRow } from '../db/workspaces.js';
import type { NotifiedPreferences } from '../domain/email-preferences.js';

/**
 * The events this service emits (ARCHITECTURE 4), their data typed by the contracts of
 * @wiki/events. Each writes to the outbox inside the caller's transaction, so an event goes out
 * exactly when its change commits.
 */

export function emitUserUpserted(tx: CommonQueryMethods, user: UserRow) {
  return publishInTx(
    tx,
    newEvent('user.upserted', {
      actorId: user.id,
      workspaceId: null,
      data: { id: user.id, idpUid: user.idpUid, email: user.email, name: user.name, avatarUrl: user.avatarUrl },
    }),
  );
}

/**
 * Sent when a save changes what the notification service acts on: notificationsEnabled, the
 * e-mail modes (every type's, defaults filled in) and the locale, all three as they now are.
 */
export function emitPreferencesChanged(tx: CommonQueryMethods, userId: string, preferences: NotifiedPreferences) {
  const { notificationsEnabled, emailNotifications, locale } = preferences;
  return publishInTx(
    tx,
    newEvent('user.preferences_changed', {
      actorId: userId,
      workspaceId: null,
      data: { userId, notificationsEnabled, emailNotifications, locale },
    }),
  );
}

export function emitWorkspace(
  tx: CommonQueryMethods,
  change: 'created' | 'updated' | 'deleted',
  actorId: string,
  ws: WorkspaceRow,
) {
  return publishInTx(
    tx,
    newEvent(`workspace.${change}`, {
      actorId,
      workspaceId: ws.id,
      data: { id: ws.id, name: ws.name, icon: ws.icon, isArchived: ws.isArchived, ownerId: ws.ownerId },
    }),
  );
}

export function emitMember(
  tx: CommonQueryMethods,
  change: 'added' | 'role_changed' | 'removed',
  actorId: string,
  member: MemberRow,
) {
  return publishInTx(
    tx,
    newEvent(`member.${change}`, {
      actorId,
      workspaceId: member.workspaceId,
      data: { workspaceId: member.workspaceId, userId: member.userId, memberId: member.id, role: member.role },
    }),
  );
}

/**
 * `created` also goes out when an open invitation is refreshed (invited again or resent), with the
 * same invitationId, the new expiresAt and `resent: true`: the invitee is told again.
 */
export function emitInvitation(
  tx: CommonQueryMethods,
  change: 'created' | 'accepted' | 'declined' | 'cancelled',
  actorId: string,
  inv: InvitationView,
  inviteeUserId: string | null,
  extra: { resent?: boolean } = {},
) {
  const data = {
    invitationId: inv.id,
    workspaceId: inv.workspaceId,
    email: inv.email,
    role: inv.role,
    invitedBy: inv.invitedBy,
    expiresAt: inv.expiresAt,
    inviteeUserId,
  };
  const event =
    change === 'created'
      ? newEvent('invitation.created', { actorId, workspaceId: inv.workspaceId, data: { ...data, ...extra } })
      : newEvent(`invitation.${change}`, { actorId, workspaceId: inv.workspaceId, data });
  return publishInTx(tx, event);
}
