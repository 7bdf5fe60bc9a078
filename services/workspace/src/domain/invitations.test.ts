import { AppError } from '@wiki/http';
import {
  assertCanRespond,
  assertOpen,
  canCancel,
  canResend,
  effectiveStatus,
  expiryFrom,
  inviteLink,
  newInvitationToken,
  sameEmail,
} from './invitations.js';

const now = new Date('2026-01-10T12:00:00.000Z');
const future = '2026-01-11T00:00:00.000Z';
const past = '2026-01-10T11:59:59.000Z';

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('invitation tokens and links', () => {
  it('makes 32-byte base64url tokens that differ', () => {
    const a = newInvitationToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newInvitationToken()).not.toBe(a);
  });

  it('builds the invite link from the configured base URL', () => {
    expect(inviteLink('https://wiki.example.com', 'tok')).toBe('https://wiki.example.com/invite/tok');
    expect(inviteLink('https://wiki.example.com/', 'tok')).toBe('https://wiki.example.com/invite/tok');
  });

  it('expires after the configured number of days', () => {
    expect(expiryFrom(now, 7).toISOString()).toBe('2026-01-17T12:00:00.000Z');
  });
});

describe('effectiveStatus', () => {
  it('shows a PENDING invitation past its expiry as EXPIRED', () => {
    expect(effectiveStatus({ status: 'PENDING', expiresAt: past }, now)).toBe('EXPIRED');
    expect(effectiveStatus({ status: 'PENDING', expiresAt: future }, now)).toBe('PENDING');
    expect(effectiveStatus({ status: 'ACCEPTED', expiresAt: past }, now)).toBe('ACCEPTED');
  });
});

describe('assertOpen and assertCanRespond', () => {
  it('answers 410 for expired and used invitations', () => {
    expect(codeOf(() => assertOpen({ status: 'PENDING', expiresAt: past }, now))).toBe('GONE');
    for (const status of ['ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED'] as const) {
      expect(codeOf(() => assertOpen({ status, expiresAt: future }, now))).toBe('GONE');
    }
    expect(codeOf(() => assertOpen({ status: 'PENDING', expiresAt: future }, now))).toBeUndefined();
  });

  it('matches the email case-insensitively, else 403', () => {
    const inv = { status: 'PENDING' as const, expiresAt: future, email: 'Ada@Example.com' };
    expect(codeOf(() => assertCanRespond(inv, 'ada@example.COM', now))).toBeUndefined();
    expect(codeOf(() => assertCanRespond(inv, 'eve@example.com', now))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCanRespond(inv, undefined, now))).toBe('FORBIDDEN');
  });

  it('reports a used invitation as 410 even to the wrong user', () => {
    expect(
      codeOf(() => assertCanRespond({ status: 'ACCEPTED', expiresAt: future, email: 'a@x.io' }, 'b@x.io', now)),
    ).toBe('GONE');
  });

  it('compares emails ignoring case and surrounding spaces', () => {
    expect(sameEmail(' A@B.io ', 'a@b.IO')).toBe(true);
    expect(sameEmail('a@b.io', 'a@c.io')).toBe(false);
  });
});

describe('cancel and resend', () => {
  it('cancels only pending ones; resends pending and expired ones', () => {
    expect(canCancel('PENDING')).toBe(true);
    expect(canCancel('ACCEPTED')).toBe(false);
    expect(canResend('PENDING')).toBe(true);
    expect(canResend('EXPIRED')).toBe(true);
    expect(canResend('DECLINED')).toBe(false);
    expect(canResend('CANCELLED')).toBe(false);
  });
});
