import { createHmac } from 'node:crypto';

/**
 * `Wiki-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (ARCHITECTURE
 * 5.18). The time is signed with the body so that a receiver can refuse old replays (5 minutes).
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
