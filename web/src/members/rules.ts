// The rules of ARCHITECTURE 3 as the settings page shows them: each function answers null when the
// caller may act, else the reason shown beside the disabled control. The API enforces the same
// rules; these only keep people from trying what would be refused.
import type { WorkspaceRole } from '../api/types';

export const ROLE_LEVEL: Record<WorkspaceRole, number> = { OWNER: 5, ADMIN: 4, EDITOR: 3, COMMENTER: 2, VIEWER: 1 };

export const ROLE_LABEL: Record<WorkspaceRole, string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  EDITOR: 'Editor',
  COMMENTER: 'Commenter',
  VIEWER: 'Viewer',
};

/** What each role may do, in a line (shown beside the role choices). */
export const ROLE_HINT: Record<WorkspaceRole, string> = {
  OWNER: 'everything, including deleting the workspace',
  ADMIN: 'manages members, invitations and settings, and edits',
  EDITOR: 'writes, moves and publishes documents',
  COMMENTER: 'reads and comments',
  VIEWER: 'reads',
};

/** A member as the rules see them. */
export interface Party {
  userId: string;
  role: WorkspaceRole;
}

export const isAdmin = (role: WorkspaceRole): boolean => ROLE_LEVEL[role] >= ROLE_LEVEL.ADMIN;
const outranks = (a: WorkspaceRole, b: WorkspaceRole): boolean => ROLE_LEVEL[a] > ROLE_LEVEL[b];

/** Roles the caller may give (by a role change or an invitation): none above their own, never OWNER. */
export function grantableRoles(actorRole: WorkspaceRole): WorkspaceRole[] {
  if (!isAdmin(actorRole)) return [];
  return (['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as const).filter((role) => !outranks(role, actorRole));
}

export function whyNotChangeRole(actor: Party, target: Party): string | null {
  if (!isAdmin(actor.role)) return 'Only admins and the owner can change roles.';
  if (target.role === 'OWNER') return "The owner's role changes only by transferring ownership.";
  if (outranks(target.role, actor.role)) return 'You cannot change the role of someone above you.';
  // The API would let an admin lower their own role; one slip of the arrow keys and they could
  // not undo it, so the page leaves that to another admin.
  if (target.userId === actor.userId) return 'You cannot change your own role; another admin or the owner can.';
  return null;
}

export function whyNotRemove(actor: Party, target: Party): string | null {
  if (!isAdmin(actor.role)) return 'Only admins and the owner can remove members.';
  if (target.role === 'OWNER') return 'The owner cannot be removed; ownership must be transferred first.';
  if (outranks(target.role, actor.role)) return 'You cannot remove someone above you.';
  if (target.userId === actor.userId) return 'To go, use "Leave workspace" below.';
  return null;
}

export function whyNotTransfer(actor: Party): string | null {
  return actor.role === 'OWNER' ? null : 'Only the owner can transfer ownership.';
}

export function whyNotLeave(actor: Party): string | null {
  return actor.role === 'OWNER' ? 'The owner cannot leave: transfer ownership to another member first.' : null;
}

export function whyNotInvite(actor: Party): string | null {
  return isAdmin(actor.role) ? null : 'Only admins and the owner can invite people and see pending invitations.';
}

export function whyNotManageWebhooks(actor: Party): string | null {
  return isAdmin(actor.role) ? null : "Only admins and the owner can see and manage the workspace's webhooks.";
}

export function whyNotUpdateWorkspace(actor: Party): string | null {
  return isAdmin(actor.role) ? null : "Only admins and the owner can change the workspace's settings.";
}

export function whyNotDeleteWorkspace(actor: Party): string | null {
  return actor.role === 'OWNER' ? null : 'Only the owner can delete the workspace.';
}
