import type { Role } from '@wiki/auth';
import type { DatabaseTransactionConnection } from '@wiki/db';
import { notFound, refusal } from '@wiki/http';
import {
  findInvitation,
  findInvitationById,
  findInvitationByToken,
  findInvitationInWorkspace,
  type InvitationView,
  listPendingForEmail,
  listPendingOfWorkspace,
  listPendingSentBy,
  reopenInvitation,
  setInvitationStatus,
  upsertPendingInvitation,
} from '../db/invitations.js';
import { findMemberByEmail, findMemberByUser, findMemberView, insertMember, type MemberView } from '../db/members.js';
import { findUserById, findUserByTrustedEmail } from '../db/users.js';
import { findWorkspace } from '../db/workspaces.js';
import {
  assertCanRespond,
  assertInviterStillMayInvite,
  assertOpen,
  assertVerifiedEmail,
  canCancel,
  canResend,
  effectiveStatus,
  expiryFrom,
  hasVerifiedEmail,
  inviteLink,
  newInvitationToken,
} from '../domain/invitations.js';
import { assertCan, assertCanInvite, mayInvite } from '../domain/roles.js';
import { emitInvitation, emitMember } from '../events/producers.js';
import { type Context, lockWorkspaceAsMember, requireMember } from './context.js';

export interface InviteInput {
  email: string;
  role: Role;
  message?: string | null;
}

/**
 * The user an invitation's events are addressed to: only the one whose email is verified (5.13),
 * never an account that merely carries the address unverified.
 */
async function inviteeUserId(tx: DatabaseTransactionConnection, email: string): Promise<string | null> {
  const user = await findUserByTrustedEmail(tx, email);
  return user?.emailVerified ? user.id : null;
}

/** Who answers an invitation: the signed-in user and what their identity token says of their email. */
export interface Invitee {
  userId: string;
  emailVerified?: boolean;
}

/** Creates the invitation, or refreshes the open one for the same address (same token). */
export function invite(ctx: Context, userId: string, workspaceId: string, input: InviteInput): Promise<InvitationView> {
  return ctx.pool.transaction(async (tx) => {
    const { member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCanInvite(member.role, input.role);
    const email = input.email.trim();
    if (await findMemberByEmail(tx, workspaceId, email))
      throw refusal('ALREADY_MEMBER', 'This person is already a member of the workspace');
    const { id, inserted } = await upsertPendingInvitation(tx, {
      workspaceId,
      email,
      role: input.role,
      message: input.message?.trim() || null,
      invitedBy: userId,
      token: newInvitationToken(),
      expiresAt: expiryFrom(new Date(), ctx.settings.invitationTtlDays),
    });
    const invitation = await findInvitation(tx, id);
    await emitInvitation(
      tx,
      'created',
      userId,
      invitation,
      await inviteeUserId(tx, email),
      inserted ? {} : { resent: true },
    );
    return invitation;
  });
}

export async function listWorkspaceInvitations(
  ctx: Context,
  userId: string,
  workspaceId: string,
): Promise<readonly InvitationView[]> {
  const member = await requireMember(ctx.pool, workspaceId, userId);
  assertCan(member.role, 'manageInvitations');
  return listPendingOfWorkspace(ctx.pool, workspaceId);
}

export function cancelInvitation(
  ctx: Context,
  userId: string,
  workspaceId: string,
  invitationId: string,
): Promise<void> {
  return ctx.pool.transaction(async (tx) => {
    const { member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCan(member.role, 'manageInvitations');
    const invitation = await findInvitationInWorkspace(tx, workspaceId, invitationId, true);
    if (!invitation) throw notFound('Invitation');
    if (!canCancel(invitation.status))
      throw refusal(
        'INVITATION_NOT_PENDING',
        `Only a pending invitation can be cancelled (this one is ${invitation.status})`,
      );
    await setInvitationStatus(tx, invitation.id, 'CANCELLED');
    await emitInvitation(tx, 'cancelled', userId, invitation, await inviteeUserId(tx, invitation.email));
  });
}

/** Refreshes the expiry (reopening an expired invitation) and keeps the token and link. */
export function resendInvitation(
  ctx: Context,
  userId: string,
  workspaceId: string,
  invitationId: string,
): Promise<InvitationView> {
  return ctx.pool.transaction(async (tx) => {
    const { member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCan(member.role, 'manageInvitations');
    const found = await findInvitationInWorkspace(tx, workspaceId, invitationId, true);
    if (!found) throw notFound('Invitation');
    assertCanInvite(member.role, found.role);
    if (!canResend(found.status))
      throw refusal(
        'INVITATION_NOT_PENDING',
        `Only a pending or expired invitation can be resent (this one is ${found.status})`,
      );
    if (await findMemberByEmail(tx, workspaceId, found.email))
      throw refusal('ALREADY_MEMBER', 'This person is already a member of the workspace');
    await reopenInvitation(tx, found.id, expiryFrom(new Date(), ctx.settings.invitationTtlDays));
    const invitation = await findInvitation(tx, found.id);
    await emitInvitation(tx, 'created', userId, invitation, await inviteeUserId(tx, invitation.email), {
      resent: true,
    });
    return invitation;
  });
}

/** Public preview: 404 for an unknown token, 410 once it is expired or used. */
export async function invitationInfo(ctx: Context, token: string): Promise<InvitationView> {
  const invitation = await findInvitationByToken(ctx.pool, token);
  if (!invitation) throw notFound('Invitation');
  assertOpen(invitation, new Date());
  return invitation;
}

/** None while the caller's email is unverified: an invitation's token is all it takes to accept it. */
export async function myInvitations(ctx: Context, caller: Invitee): Promise<readonly InvitationView[]> {
  const user = await findUserById(ctx.pool, caller.userId);
  if (!user) throw notFound('User');
  if (!hasVerifiedEmail(user.emailVerified, caller.emailVerified)) return [];
  return listPendingForEmail(ctx.pool, user.email);
}

/**
 * Locks in the same order as the admin commands (workspace, then invitation) so an accept and a
 * cancel of the same invitation cannot deadlock; the invitation is read again under the lock.
 */
async function lockInvitationForAnswer(tx: DatabaseTransactionConnection, token: string, caller: Invitee) {
  const user = await findUserById(tx, caller.userId);
  if (!user) throw notFound('User');
  assertVerifiedEmail(hasVerifiedEmail(user.emailVerified, caller.emailVerified));
  const peek = await findInvitationByToken(tx, token);
  if (!peek) throw notFound('Invitation');
  if (!(await findWorkspace(tx, peek.workspaceId, true))) throw notFound('Invitation');
  const invitation = await findInvitationByToken(tx, token, true);
  if (!invitation) throw notFound('Invitation');
  assertCanRespond(invitation, user.email, new Date());
  return { invitation, user };
}

/** The caller joins with the invited role (any role in the request body is ignored: 5.13). */
export function acceptInvitation(ctx: Context, caller: Invitee, token: string): Promise<MemberView> {
  const { userId } = caller;
  return ctx.pool.transaction(async (tx) => {
    const { invitation } = await lockInvitationForAnswer(tx, token, caller);
    const inviter = invitation.invitedBy
      ? await findMemberByUser(tx, invitation.workspaceId, invitation.invitedBy)
      : null;
    assertInviterStillMayInvite(inviter?.role ?? null, invitation.role);
    if (await findMemberByUser(tx, invitation.workspaceId, userId))
      throw refusal('ALREADY_MEMBER', 'You are already a member of this workspace');
    const member = await insertMember(tx, {
      workspaceId: invitation.workspaceId,
      userId,
      role: invitation.role,
      invitedBy: invitation.invitedBy,
      invitedAt: invitation.invitedAt,
    });
    await setInvitationStatus(tx, invitation.id, 'ACCEPTED');
    await emitMember(tx, 'added', userId, member);
    await emitInvitation(tx, 'accepted', userId, invitation, userId);
    return findMemberView(tx, member.id);
  });
}

export function declineInvitation(ctx: Context, caller: Invitee, token: string): Promise<void> {
  const { userId } = caller;
  return ctx.pool.transaction(async (tx) => {
    const { invitation } = await lockInvitationForAnswer(tx, token, caller);
    await setInvitationStatus(tx, invitation.id, 'DECLINED');
    await emitInvitation(tx, 'declined', userId, invitation, userId);
  });
}

/**
 * Left-over power (docs/DECISIONS.md): when a member leaves, is removed or gets a new role, the
 * PENDING invitations they sent that `role` could not send (all of them when `role` is null: no
 * longer a member) are cancelled, with invitation.cancelled as a cancel by `actorId` would emit.
 * Runs in the caller's transaction, which holds the workspace lock.
 */
export async function cancelLeftOverInvitations(
  tx: DatabaseTransactionConnection,
  actorId: string,
  workspaceId: string,
  inviterId: string,
  role: Role | null,
): Promise<void> {
  for (const invitation of await listPendingSentBy(tx, workspaceId, inviterId)) {
    if (role && mayInvite(role, invitation.role)) continue;
    await setInvitationStatus(tx, invitation.id, 'CANCELLED');
    await emitInvitation(tx, 'cancelled', actorId, invitation, await inviteeUserId(tx, invitation.email));
  }
}

/**
 * An open invitation with its link, for the notification service's e-mail (events never carry
 * the token). 404 unless it is PENDING and not past its expiry: a cancelled, answered or expired
 * invitation is not e-mailed.
 */
export async function pendingInvitationLink(ctx: Context, invitationId: string) {
  const found = await findInvitationById(ctx.pool, invitationId);
  if (!found || effectiveStatus(found, new Date()) !== 'PENDING') throw notFound('Invitation');
  return { invitation: found, link: inviteLink(ctx.settings.inviteUrl, found.token) };
}
