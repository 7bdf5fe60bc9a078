import { ROLES, type Role } from '@wiki/auth';
import { AppError } from '@wiki/http';
import { assertCan, assertCanChangeRole, assertCanInvite, assertCanLeave, assertCanRemove, can } from './roles.js';

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('can', () => {
  it('follows the minimum-role table', () => {
    expect(ROLES.filter((r) => can(r, 'read'))).toEqual(ROLES);
    expect(ROLES.filter((r) => can(r, 'updateWorkspace'))).toEqual(['OWNER', 'ADMIN']);
    expect(ROLES.filter((r) => can(r, 'invite'))).toEqual(['OWNER', 'ADMIN']);
    expect(ROLES.filter((r) => can(r, 'deleteWorkspace'))).toEqual(['OWNER']);
    expect(ROLES.filter((r) => can(r, 'transferOwnership'))).toEqual(['OWNER']);
  });

  it('assertCan refuses with 403', () => {
    expect(codeOf(() => assertCan('EDITOR', 'invite'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCan('ADMIN', 'invite'))).toBeUndefined();
  });
});

describe('assertCanChangeRole', () => {
  it('needs ADMIN or more', () => {
    for (const actor of ['EDITOR', 'COMMENTER', 'VIEWER'] as Role[]) {
      expect(codeOf(() => assertCanChangeRole(actor, 'VIEWER', 'COMMENTER'))).toBe('FORBIDDEN');
    }
  });

  it('lets an admin change roles up to their own level, including other admins', () => {
    expect(codeOf(() => assertCanChangeRole('ADMIN', 'VIEWER', 'ADMIN'))).toBeUndefined();
    expect(codeOf(() => assertCanChangeRole('ADMIN', 'ADMIN', 'VIEWER'))).toBeUndefined();
    expect(codeOf(() => assertCanChangeRole('OWNER', 'ADMIN', 'EDITOR'))).toBeUndefined();
  });

  it('refuses to touch a member above the caller', () => {
    expect(codeOf(() => assertCanChangeRole('ADMIN', 'OWNER', 'ADMIN'))).toBe('FORBIDDEN');
  });

  it('gives OWNER only by transfer (400)', () => {
    expect(codeOf(() => assertCanChangeRole('OWNER', 'ADMIN', 'OWNER'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => assertCanChangeRole('ADMIN', 'EDITOR', 'OWNER'))).toBe('VALIDATION_ERROR');
  });

  it('does not let the owner demote themselves', () => {
    expect(codeOf(() => assertCanChangeRole('OWNER', 'OWNER', 'ADMIN'))).toBe('VALIDATION_ERROR');
  });
});

describe('assertCanRemove', () => {
  it('needs ADMIN or more and never removes someone above', () => {
    expect(codeOf(() => assertCanRemove('EDITOR', 'VIEWER'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCanRemove('ADMIN', 'OWNER'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCanRemove('ADMIN', 'ADMIN'))).toBeUndefined();
    expect(codeOf(() => assertCanRemove('OWNER', 'EDITOR'))).toBeUndefined();
  });

  it('never removes the owner', () => {
    expect(codeOf(() => assertCanRemove('OWNER', 'OWNER'))).toBe('CONFLICT');
  });
});

describe('assertCanLeave', () => {
  it('keeps the owner (409) and lets everyone else go', () => {
    expect(codeOf(() => assertCanLeave('OWNER'))).toBe('CONFLICT');
    for (const role of ['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as Role[])
      expect(codeOf(() => assertCanLeave(role))).toBeUndefined();
  });
});

describe('assertCanInvite', () => {
  it('needs ADMIN, refuses OWNER invitations (400) and roles above the inviter', () => {
    expect(codeOf(() => assertCanInvite('EDITOR', 'VIEWER'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCanInvite('ADMIN', 'OWNER'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => assertCanInvite('OWNER', 'OWNER'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => assertCanInvite('ADMIN', 'ADMIN'))).toBeUndefined();
    expect(codeOf(() => assertCanInvite('OWNER', 'VIEWER'))).toBeUndefined();
  });
});
