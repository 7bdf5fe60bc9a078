import type { AppError } from '@wiki/http';
import { hashMcpKey, newMcpKey } from './mcp-keys.js';
import { planOwnershipTransfer } from './transfer.js';
import { acceptableAvatar, defaultWorkspaceName, displayName, profileChanges } from './users.js';

describe('users', () => {
  it('names the default workspace after the user', () => {
    expect(defaultWorkspaceName('Ada Lovelace')).toBe("Ada Lovelace's workspace");
    expect(defaultWorkspaceName('x'.repeat(300))).toHaveLength(255);
  });

  it('falls back to the email local part for a missing name', () => {
    expect(displayName(undefined, 'ada@example.com')).toBe('ada');
    expect(displayName('  ', 'ada@example.com')).toBe('ada');
    expect(displayName(' Ada ', 'ada@example.com')).toBe('Ada');
  });

  it('cuts an over-long name to 255 characters, never inside a character', () => {
    expect(displayName(`${'a'.repeat(254)}${'😀'.repeat(10)}`, 'a@x.io')).toBe(`${'a'.repeat(254)}😀`);
    expect(displayName('a'.repeat(5000), 'a@x.io')).toBe('a'.repeat(255));
  });

  it('keeps an avatarUrl only when it passes the image URL rule of coverImageUrl', () => {
    expect(acceptableAvatar('https://img.example/a.png')).toBe('https://img.example/a.png');
    expect(acceptableAvatar('/api/v1/attachments/file?key=a')).toBe('/api/v1/attachments/file?key=a');
    for (const bad of ['javascript:alert(1)', '//evil.example/a.png', 'img/a.png', `https://x.io/${'a'.repeat(2048)}`])
      expect(acceptableAvatar(bad), bad).toBeUndefined();
  });

  it('reports only the profile fields that changed, keeping omitted claims', () => {
    const stored = { email: 'a@x.io', emailVerified: true, name: 'Ada', avatarUrl: 'http://a/1.png' };
    const same = { email: 'a@x.io', emailVerified: true };
    expect(profileChanges(stored, { ...same, name: 'Ada' })).toEqual({});
    expect(profileChanges(stored, same)).toEqual({});
    expect(profileChanges(stored, { ...same, avatarUrl: 'javascript:alert(1)' })).toEqual({});
    expect(
      profileChanges(stored, { email: 'b@x.io', emailVerified: false, name: 'Ada L', avatarUrl: 'http://a/2.png' }),
    ).toEqual({
      email: 'b@x.io',
      emailVerified: false,
      name: 'Ada L',
      avatarUrl: 'http://a/2.png',
    });
  });
});

describe('mcp keys', () => {
  it('makes unguessable keys, shows a prefix and stores a SHA-256', () => {
    const { key, prefix, hash } = newMcpKey();
    expect(key.startsWith(prefix)).toBe(true);
    expect(prefix.length).toBeLessThan(key.length / 2);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashMcpKey(key)).toBe(hash);
    expect(newMcpKey().key).not.toBe(key);
  });
});

describe('planOwnershipTransfer', () => {
  const owner = { userId: 'u1', role: 'OWNER' as const };
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as AppError).code;
    }
    return undefined;
  };

  it('demotes the owner to ADMIN and promotes the target', () => {
    expect(planOwnershipTransfer(owner, { userId: 'u2', role: 'VIEWER' })).toEqual({
      previousOwner: 'ADMIN',
      newOwner: 'OWNER',
      target: { userId: 'u2', role: 'VIEWER' },
    });
  });

  it('is for the owner only, to another member', () => {
    expect(code(() => planOwnershipTransfer({ userId: 'u1', role: 'ADMIN' }, { userId: 'u2', role: 'VIEWER' }))).toBe(
      'FORBIDDEN',
    );
    expect(code(() => planOwnershipTransfer(owner, null))).toBe('VALIDATION_ERROR');
    expect(code(() => planOwnershipTransfer(owner, owner))).toBe('VALIDATION_ERROR');
  });
});
