import { AppError } from '@wiki/http';
import type { Peer } from './peer-replicas.js';

/** An array answer, each item checked by `parse` (which throws an Error naming `what`). */
export function listOf<T>(data: unknown, parse: (item: unknown, what: string) => T, what: string): T[] {
  if (!Array.isArray(data)) throw new Error(`${what} is not a list`);
  return data.map((item, i) => parse(item, `${what} (item ${i})`));
}

/**
 * What a list call throws when the peer answered 404 for the list itself: a peer that does not
 * have the route yet (an older version mid-rollout), which the caller cannot tell from an empty
 * list otherwise. A 503, as for any peer that cannot answer.
 */
export function missingRoute(peer: Peer, path: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `The ${peer} service does not answer ${path} yet`);
}
