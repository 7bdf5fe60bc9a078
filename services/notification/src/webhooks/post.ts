import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import type { CheckedTarget } from './address-guard.js';

/** A receiver has this long to answer, body included (ARCHITECTURE 5.18). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Of the receiver's answer, at most this much is read, then dropped: we keep only its status. */
const RESPONSE_READ_MAX = 4096;

export interface PostOutcome {
  /** The receiver's status, or null when no answer came (refused, timed out, connection failed). */
  status: number | null;
  durationMs: number;
}

/**
 * POSTs `body` to the checked target, connecting to the checked address only: the lookup the
 * connection makes answers that address whatever DNS says now, while the Host header and TLS
 * name stay the URL's. Redirects are not followed (a 3xx is an answer like any other).
 */
export async function postToTarget(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostOutcome> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const agent = new Agent({ connect: { lookup: pinned, timeout: timeoutMs }, connections: 1, pipelining: 0 });
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const res = await request(target.url, {
      method: 'POST',
      headers,
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    let read = 0;
    for await (const chunk of res.body) {
      read += (chunk as Buffer).length;
      if (read >= RESPONSE_READ_MAX) break; // leaving the loop destroys the rest unread
    }
    return { status: res.statusCode, durationMs: duration() };
  } catch {
    return { status: null, durationMs: duration() };
  } finally {
    agent.destroy().catch(() => undefined);
  }
}
