import type { Role } from '@wiki/auth';
import { badRequest } from '@wiki/http';
import { assertCan } from './roles.js';

/**
 * ARCHITECTURE 5.4: only the OWNER transfers, to another active member; the old owner becomes
 * ADMIN. Returns the role changes to apply.
 */
export function planOwnershipTransfer<T extends { userId: string; role: Role }>(
  actor: { userId: string; role: Role },
  target: T | null,
): { previousOwner: Role; newOwner: Role; target: T } {
  assertCan(actor.role, 'transferOwnership');
  if (!target)
    throw badRequest('The new owner must be a member of the workspace', [
      { field: 'userId', message: 'is not a member of this workspace' },
    ]);
  if (target.userId === actor.userId)
    throw badRequest('You already own this workspace', [{ field: 'userId', message: 'is already the owner' }]);
  return { previousOwner: 'ADMIN', newOwner: 'OWNER', target };
}
