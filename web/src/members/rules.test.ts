import { describe, expect, it } from 'vitest';
import {
  grantableRoles,
  whyNotChangeRole,
  whyNotDeleteWorkspace,
  whyNotLeave,
  whyNotManageWebhooks,
  whyNotRemove,
  whyNotTransfer,
} from './rules';

const owner = { userId: 'o', role: 'OWNER' as const };
const admin = { userId: 'a', role: 'ADMIN' as const };
const otherAdmin = { userId: 'a2', role: 'ADMIN' as const };
const editor = { userId: 'e', role: 'EDITOR' as const };
const viewer = { userId: 'v', role: 'VIEWER' as const };

describe('member rules (ARCHITECTURE 3)', () => {
  it('lets admins and the owner change and remove members up to their own level, never the owner', () => {
    expect(whyNotChangeRole(admin, editor)).toBeNull();
    expect(whyNotChangeRole(admin, otherAdmin)).toBeNull();
    expect(whyNotChangeRole(owner, admin)).toBeNull();
    expect(whyNotRemove(admin, otherAdmin)).toBeNull();
    expect(whyNotChangeRole(admin, owner)).toMatch(/transferring ownership/);
    expect(whyNotRemove(owner, owner)).toMatch(/transferred first/);
    expect(whyNotRemove(admin, owner)).toMatch(/transferred first/);
  });

  it('gives members below admin a reason for every member control', () => {
    expect(whyNotChangeRole(editor, viewer)).toBe('Only admins and the owner can change roles.');
    expect(whyNotRemove(viewer, editor)).toBe('Only admins and the owner can remove members.');
    expect(grantableRoles('EDITOR')).toEqual([]);
  });

  it('leaves webhooks to admins and the owner', () => {
    expect(whyNotManageWebhooks(admin)).toBeNull();
    expect(whyNotManageWebhooks(owner)).toBeNull();
    expect(whyNotManageWebhooks(editor)).toMatch(/Only admins and the owner/);
    expect(whyNotManageWebhooks(viewer)).toMatch(/Only admins and the owner/);
  });

  it('leaves your own role to someone else and sends you to Leave instead of Remove', () => {
    expect(whyNotChangeRole(admin, admin)).toMatch(/your own role/);
    expect(whyNotRemove(admin, admin)).toMatch(/Leave workspace/);
  });

  it('keeps transfer and delete to the owner, and the owner from leaving', () => {
    expect(whyNotTransfer(owner)).toBeNull();
    expect(whyNotTransfer(admin)).toBe('Only the owner can transfer ownership.');
    expect(whyNotDeleteWorkspace(owner)).toBeNull();
    expect(whyNotDeleteWorkspace(admin)).toBe('Only the owner can delete the workspace.');
    expect(whyNotLeave(owner)).toMatch(/transfer ownership/);
    expect(whyNotLeave(viewer)).toBeNull();
  });

  it('never offers OWNER, nor a role above the caller', () => {
    expect(grantableRoles('OWNER')).toEqual(['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER']);
    expect(grantableRoles('ADMIN')).toEqual(['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER']);
  });
});
