import type { DatabaseTransactionConnection } from '@wiki/db';
import { notFound } from '@wiki/http';
import { findMemberByUser, insertMember, setMemberRole } from '../db/members.js';
import {
  deleteWorkspace as deleteWorkspaceRow,
  findWorkspace,
  insertWorkspace,
  setWorkspaceOwner,
  updateWorkspace as updateWorkspaceRow,
  type WorkspacePatch,
  type WorkspaceRow,
} from '../db/workspaces.js';
import { assertCan } from '../domain/roles.js';
import { planOwnershipTransfer } from '../domain/transfer.js';
import { emitMember, emitWorkspace } from '../events/producers.js';
import { type Context, lockWorkspaceAsMember, requireMember } from './context.js';

export function listWorkspaces(ctx: Context, userId: string): Promise<readonly WorkspaceRow[]> {
  return ctx.reads.listWorkspacesOfUser(userId);
}

export async function getWorkspace(ctx: Context, userId: string, workspaceId: string): Promise<WorkspaceRow> {
  await requireMember(ctx.pool, workspaceId, userId);
  const workspace = await findWorkspace(ctx.pool, workspaceId);
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

export interface NewWorkspaceInput {
  name: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
}

/** The creator becomes its OWNER. Used inside other transactions too (the default workspace). */
export async function createWorkspaceInTx(
  tx: DatabaseTransactionConnection,
  ownerId: string,
  input: NewWorkspaceInput & { isDefault?: boolean },
): Promise<WorkspaceRow> {
  const workspace = await insertWorkspace(tx, { ...input, name: input.name.trim(), ownerId });
  const member = await insertMember(tx, { workspaceId: workspace.id, userId: ownerId, role: 'OWNER' });
  await emitWorkspace(tx, 'created', ownerId, workspace);
  await emitMember(tx, 'added', ownerId, member);
  return workspace;
}

export function createWorkspace(ctx: Context, userId: string, input: NewWorkspaceInput): Promise<WorkspaceRow> {
  return ctx.pool.transaction((tx) => createWorkspaceInTx(tx, userId, input));
}

export function updateWorkspace(
  ctx: Context,
  userId: string,
  workspaceId: string,
  patch: WorkspacePatch,
): Promise<WorkspaceRow> {
  return ctx.pool.transaction(async (tx) => {
    const { member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCan(member.role, 'updateWorkspace');
    const updated = await updateWorkspaceRow(tx, workspaceId, { ...patch, name: patch.name?.trim() });
    await emitWorkspace(tx, 'updated', userId, updated);
    return updated;
  });
}

/** Irreversible: members, invitations and counts go with it; other services purge on workspace.deleted. */
export function deleteWorkspace(ctx: Context, userId: string, workspaceId: string): Promise<void> {
  return ctx.pool.transaction(async (tx) => {
    const { workspace, member } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    assertCan(member.role, 'deleteWorkspace');
    await deleteWorkspaceRow(tx, workspaceId);
    await emitWorkspace(tx, 'deleted', userId, workspace);
  });
}

/** ARCHITECTURE 5.4: the target becomes OWNER, the old owner ADMIN, and owner_id follows. */
export function transferOwnership(
  ctx: Context,
  userId: string,
  workspaceId: string,
  newOwnerId: string,
): Promise<WorkspaceRow> {
  return ctx.pool.transaction(async (tx) => {
    const { member: actor } = await lockWorkspaceAsMember(tx, workspaceId, userId);
    const target = newOwnerId === userId ? actor : await findMemberByUser(tx, workspaceId, newOwnerId);
    const plan = planOwnershipTransfer(actor, target && target.status === 'ACTIVE' ? target : null);
    const demoted = await setMemberRole(tx, actor.id, plan.previousOwner);
    const promoted = await setMemberRole(tx, plan.target.id, plan.newOwner);
    const workspace = await setWorkspaceOwner(tx, workspaceId, newOwnerId);
    await emitMember(tx, 'role_changed', userId, demoted);
    await emitMember(tx, 'role_changed', userId, promoted);
    await emitWorkspace(tx, 'updated', userId, workspace);
    return workspace;
  });
}
