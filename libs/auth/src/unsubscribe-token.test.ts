import { describe, expect, it } from 'vitest';
import { signUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.js';

const secret = 'a-long-enough-secret-for-the-test-0123456789';
const userId = '3f1c2a9e-5b7d-4c21-9a0e-6d2f8b1c4e57';

describe('unsubscribe tokens', () => {
  it('verifies what it signed', () => {
    const token = signUnsubscribeToken(secret, { userId, type: 'COMMENT_REPLY' });
    expect(verifyUnsubscribeToken(secret, token)).toEqual({ userId, type: 'COMMENT_REPLY' });
    expect(verifyUnsubscribeToken(secret, signUnsubscribeToken(secret, { userId, type: '*' }))).toEqual({
      userId,
      type: '*',
    });
  });

  it('refuses another secret, a changed claim and garbage', () => {
    const token = signUnsubscribeToken(secret, { userId, type: 'COMMENT_REPLY' });
    expect(verifyUnsubscribeToken(`${secret}x`, token)).toBeNull();
    expect(verifyUnsubscribeToken(secret, token.replace('COMMENT_REPLY', 'COMMENT_MENTION'))).toBeNull();
    expect(verifyUnsubscribeToken(secret, `${token.slice(0, -2)}AA`)).toBeNull();
    for (const bad of ['', 'u1', 'u1.x.y.z', `${token}.extra`, 'x'.repeat(500)])
      expect(verifyUnsubscribeToken(secret, bad)).toBeNull();
  });

  it('refuses to sign a claim out of shape', () => {
    expect(() => signUnsubscribeToken(secret, { userId: 'nope', type: 'COMMENT_REPLY' })).toThrow();
    expect(() => signUnsubscribeToken(secret, { userId, type: 'a.b' })).toThrow();
  });
});
