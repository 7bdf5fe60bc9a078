import type { Role } from '@wiki/auth';
import { notFound } from '@wiki/http';
import {
  deleteMember,
  findMemberById,
  findMembershipState,
  findMemberView,
  type MemberView,
  searchMembers as searchMemberViews,
  setMemberRole,
} from '../db/members.js';
import { assertCanChangeRole, assertCanLeave, assertCanRemove } from '../domain/roles.js';
import { emitMember } from '../events/producers.js';
import { type Context, lockWorkspaceAsMember, requireMember } from './context.js';
import { cancelLeftOverInvitations } from './invitations.js';

export const SEARCH_LIMIT = 20;

/** The workspace's members; 404 for a non-member, who does not learn that the workspace exists. */
export async function listMembers(ctx: Context, userId: string, workspaceId: string): Promise<readonly MemberView[]> {
  const members = await ctx.reads.listMembersAs(workspaceId, userId);
  if (!members) throw notFound('Workspace');
  return members;
}

export async function searchMembers(
  ctx: Context,
  userId: string,
  workspaceId: string,
  q: string,
): Promise<readonly MemberView[]> {
  await requireMember(ctx.pool, workspaceId, userId);
  return searchMemberViews(ctx.pool, workspaceId, q.trim(), SEARCH_LIMIT);
}

export function changeRole(
  ctx: Context,
  userId: string,
  workspaceId: string,
  memberId: string,
  role: Role,
): Promise<MemberView> {
  return ctx.pool.transaction(async (tx) => {
    const { member: actor } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    const target = await findMemberById(tx, workspaceId, memberId);
    if (!target) throw notFound('Member');
    assertCanChangeRole(actor.role, target.role, role);
    if (target.role !== role) {
      const changed = await setMemberRole(tx, target.id, role);
      await emitMember(tx, 'role_changed', userId, changed);
      await cancelLeftOverInvitations(tx, userId, workspaceId, target.userId, role);
    }
    return findMemberView(tx, target.id);
  });
}

export function removeMember(ctx: Context, userId: string, workspaceId: string, memberId: string): Promise<void> {
  return ctx.pool.transaction(async (tx) => {
    const { member: actor } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    const target = await findMemberById(tx, workspaceId, memberId);
    if (!target) throw notFound('Member');
    assertCanRemove(actor.role, target.role);
    await deleteMember(tx, target.id);
    await emitMember(tx, 'removed', userId, target);
    await cancelLeftOverInvitations(tx, userId, workspaceId, target.userId, null);
  });
}

export function leaveWorkspace(ctx: Context, userId: string, workspaceId: string): Promise<void> {
  return ctx.pool.transaction(async (tx) => {
    const { member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCanLeave(member.role);
    await deleteMember(tx, member.id);
    await emitMember(tx, 'removed', userId, member);
    await cancelLeftOverInvitations(tx, userId, workspaceId, userId, null);
  });
}

/** For other services' membership projections (read-through when their row is missing). */
export async function membership(ctx: Context, workspaceId: string, userId: string) {
  const member = await findMembershipState(ctx.pool, workspaceId, userId);
  if (!member) throw notFound('Member');
  return member;
}
