import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed token of an e-mail's one-click unsubscribe link (RFC 8058, ARCHITECTURE 5.18): who
 * and which notification type (or every type, `*`). The notification service signs it into each
 * message; the workspace service, which owns the preferences, verifies it without a session.
 * The key is derived from INTERNAL_TOKEN_SECRET under its own label, so a token of one kind can
 * never pass for another. It does not expire: an old message's link must still work.
 */
export interface UnsubscribeClaim {
  userId: string;
  /** A NotificationType, or `*` for every type. */
  type: string;
}

const VERSION = 'u1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYPE = /^(\*|[A-Z_]{1,40})$/;

function mac(secret: string, payload: string): Buffer {
  const key = createHmac('sha256', secret).update('wiki e-mail unsubscribe v1').digest();
  return createHmac('sha256', key).update(payload).digest();
}

export function signUnsubscribeToken(secret: string, claim: UnsubscribeClaim): string {
  if (!UUID.test(claim.userId) || !TYPE.test(claim.type)) throw new Error('unsubscribe claim out of shape');
  const payload = `${VERSION}.${claim.userId.toLowerCase()}.${claim.type}`;
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The claim of a token this secret signed, else null (any other string, however malformed). */
export function verifyUnsubscribeToken(secret: string, token: string): UnsubscribeClaim | null {
  if (token.length > 200) return null;
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  const [version, userId, type, signature] = parts as [string, string, string, string];
  if (!UUID.test(userId) || !TYPE.test(type)) return null;
  const expected = mac(secret, `${version}.${userId}.${type}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, type };
}
