import { ROLE_LEVEL, type Role } from '@wiki/auth';
import { badRequest, forbidden, refusal } from '@wiki/http';

/**
 * Who may do what inside a workspace (ARCHITECTURE 3). Every function throws the AppError the
 * client should see, so routes read as a list of checks. Non-members never reach these rules:
 * the routes answer 404 for them before (existence is not leaked).
 */

export type Action =
  | 'read'
  | 'updateWorkspace'
  | 'invite'
  | 'manageInvitations'
  | 'changeRole'
  | 'removeMember'
  | 'deleteWorkspace'
  | 'transferOwnership';

export const MINIMUM_ROLE: Record<Action, Role> = {
  read: 'VIEWER',
  updateWorkspace: 'ADMIN',
  invite: 'ADMIN',
  manageInvitations: 'ADMIN',
  changeRole: 'ADMIN',
  removeMember: 'ADMIN',
  deleteWorkspace: 'OWNER',
  transferOwnership: 'OWNER',
};

export const outranks = (a: Role, b: Role): boolean => ROLE_LEVEL[a] > ROLE_LEVEL[b];

export function can(role: Role, action: Action): boolean {
  return ROLE_LEVEL[role] >= ROLE_LEVEL[MINIMUM_ROLE[action]];
}

export function assertCan(role: Role, action: Action): void {
  if (!can(role, action)) throw forbidden(`This needs the ${MINIMUM_ROLE[action]} role or higher`);
}

/** OWNER is only ever given by a transfer of ownership; nobody grants more than they hold. */
function assertGrantable(actorRole: Role, newRole: Role): void {
  if (newRole === 'OWNER')
    throw badRequest('The OWNER role is only given by transferring ownership', [
      { field: 'role', message: 'OWNER is only given by transferring ownership' },
    ]);
  if (outranks(newRole, actorRole)) throw forbidden('You cannot grant a role higher than your own');
}

/** PUT .../members/{id}/role by a member with `actorRole` on a member holding `targetRole`. */
export function assertCanChangeRole(actorRole: Role, targetRole: Role, newRole: Role): void {
  assertCan(actorRole, 'changeRole');
  if (outranks(targetRole, actorRole)) throw forbidden('You cannot change the role of a member above you');
  assertGrantable(actorRole, newRole);
  // Only the owner can be the target here; demoting them would leave the workspace ownerless.
  if (targetRole === 'OWNER') throw badRequest("The owner's role changes only by transferring ownership");
}

/** DELETE .../members/{id}. */
export function assertCanRemove(actorRole: Role, targetRole: Role): void {
  assertCan(actorRole, 'removeMember');
  if (outranks(targetRole, actorRole)) throw forbidden('You cannot remove a member above you');
  if (targetRole === 'OWNER')
    throw refusal('OWNER_MUST_TRANSFER', 'The owner cannot be removed; transfer ownership first');
}

/** POST .../members/leave: an OWNER must transfer ownership first (409, the state conflicts). */
export function assertCanLeave(role: Role): void {
  if (role === 'OWNER')
    throw refusal('OWNER_MUST_TRANSFER', 'The owner cannot leave the workspace; transfer ownership first');
}

/** Whether a member with `actorRole` may invite someone as `role` (assertCanInvite without the error). */
export function mayInvite(actorRole: Role, role: Role): boolean {
  return can(actorRole, 'invite') && role !== 'OWNER' && !outranks(role, actorRole);
}

/** POST .../members/invite with `role` for the invitee. */
export function assertCanInvite(actorRole: Role, role: Role): void {
  assertCan(actorRole, 'invite');
  assertGrantable(actorRole, role);
}
