import type { JWTPayload, JWTVerifyGetKey } from 'jose';

/** How one identity provider's access tokens are checked. */
export interface TokenProvider {
  name: 'dev' | 'oidc' | 'firebase';
  /** Resolves the verification key from the token's header (a JWKS, local or remote). */
  keys: JWTVerifyGetKey;
  issuer: string;
  /** The audience every token must be for (checked by jose against `aud`). */
  audience?: string;
  /**
   * OIDC: the client tokens must be issued to, found in `aud` or else in `azp` (Keycloak puts the
   * client id in `azp` and often `account` in `aud`). Checked after the signature.
   */
  client?: string;
  /**
   * True when every email this provider signs is one it has verified (the dev key pair: whoever
   * holds it is trusted); otherwise the token's `email_verified` claim says.
   */
  vouchesForEmails?: boolean;
  /** The provider's roles carried by a verified token. */
  roles(payload: JWTPayload): string[];
}

/** How long a remote key set is trusted before it is fetched again, and how long a fetch may take. */
export const REMOTE_JWKS_OPTIONS = { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 };

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
