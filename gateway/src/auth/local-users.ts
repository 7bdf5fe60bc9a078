import { profileName, profilePicture } from '@wiki/auth';
import { keyOf, LocalCache } from '@wiki/cache';
import { unauthorized } from '@wiki/http';
import type { ServiceClient } from '@wiki/service-client';
import type { FastifyBaseLogger } from 'fastify';
import type { VerifiedToken } from './token-verifier.js';

/** A local user as the workspace service knows them. */
export interface LocalUser {
  id: string;
  email?: string;
  /** Whether the stored email is one the identity provider vouched for at the last sign-in. */
  emailVerified?: boolean;
  name?: string;
  avatarUrl?: string | null;
  idpUid?: string;
}

export interface LocalUsersOptions {
  /** AUTH_EMAIL_VERIFIED_DEFAULT: what a token without an `email_verified` claim counts as. */
  emailVerifiedDefault: boolean;
}

/** How long a find-or-create answer is reused (the workspace service stamps lastLoginAt on each call). */
const CACHE_MS = 30_000;

/**
 * Finds or creates the local user for a verified token (`POST /internal/users/resolve` on the
 * workspace service). Answers are cached per provider uid and profile claims, so a changed
 * name, picture or verification state reaches the workspace service on the next request.
 */
export class LocalUsers {
  /** Concurrent misses for one user share one call. */
  private readonly cache = new LocalCache<LocalUser>({ maxEntries: 10_000, ttlMs: CACHE_MS });

  constructor(
    private readonly peers: ServiceClient,
    private readonly options: LocalUsersOptions,
  ) {}

  resolve(claims: VerifiedToken, requestId: string, log: FastifyBaseLogger): Promise<LocalUser> {
    const body = {
      idpUid: claims.idpUid,
      email: claims.email,
      emailVerified: claims.emailVerified ?? this.options.emailVerifiedDefault,
      // Claims the user record cannot keep are cut or dropped here, so they never refuse the sign-in.
      name: profileName(claims.name),
      avatarUrl: profilePicture(claims.avatarUrl),
    };
    const key = keyOf(body.idpUid, body.email, String(body.emailVerified), body.name, body.avatarUrl);
    return this.cache.getOrLoad(key, async () => {
      // The claims it cannot accept (400) or an email another account holds (409) refuse the sign-in;
      // anything else that goes wrong is the workspace service's failure (503).
      const refused = (status: number) => {
        log.warn({ status }, 'workspace service refused to resolve the user');
        return unauthorized('The account could not be signed in');
      };
      const user = await this.peers.post<LocalUser>('workspace', '/internal/users/resolve', body, {
        requestId,
        refusal: (status) => (status === 400 || status === 409 ? refused(status) : undefined),
      });
      if (!user) throw refused(404);
      return user;
    });
  }
}
