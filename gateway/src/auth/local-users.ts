import { unauthorized } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';
import { keyOf, SingleFlight, TtlCache } from '../ttl-cache.js';
import type { VerifiedToken } from './token-verifier.js';
import type { LocalUser, WorkspaceClient } from './workspace-client.js';

/** How long a find-or-create answer is reused (the workspace service stamps lastLoginAt on each call). */
const CACHE_MS = 30_000;

/**
 * Finds or creates the local user for a verified token (`POST /internal/users/resolve` on the
 * workspace service). Answers are cached per provider uid and profile claims, so a changed
 * name or picture reaches the workspace service on the next request.
 */
export class LocalUsers {
  private readonly cache = new TtlCache<LocalUser>();
  private readonly inFlight = new SingleFlight<LocalUser>();

  constructor(private readonly workspace: WorkspaceClient) {}

  resolve(claims: VerifiedToken, requestId: string, log: FastifyBaseLogger): Promise<LocalUser> {
    const key = keyOf(claims.idpUid, claims.email, claims.name, claims.avatarUrl);
    const hit = this.cache.get(key);
    if (hit) return Promise.resolve(hit);
    return this.inFlight.run(key, async () => {
      const body = { idpUid: claims.idpUid, email: claims.email, name: claims.name, avatarUrl: claims.avatarUrl };
      const result = await this.workspace.post<LocalUser>('/internal/users/resolve', body, requestId, log);
      if (result.status === 'refused') {
        log.warn({ status: result.httpStatus }, 'workspace service refused to resolve the user');
        throw unauthorized('The account could not be signed in');
      }
      this.cache.set(key, result.data, CACHE_MS);
      return result.data;
    });
  }
}
