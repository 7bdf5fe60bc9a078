import { serviceUnavailable, unauthorized } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import { hashOf, TtlCache } from '../ttl-cache.js';
import type { TokenProvider } from './providers/index.js';

/**
 * Asymmetric algorithms only: a token signed with `none` or with an HMAC (HS*) is refused before
 * any key is looked at, which also defeats "HS256 signed with the public key" forgeries.
 */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'EdDSA', 'PS256'];
/** Clock skew allowed between the identity provider and this gateway. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** A verified token is trusted from the cache for at most this long (and never past its expiry). */
const CACHE_MS = 60_000;

/** The caller as the identity provider describes them. */
export interface VerifiedToken {
  /** The provider's subject (`sub`). */
  idpUid: string;
  email?: string;
  /** The provider's `email_verified` claim; undefined when it sent none (the gateway's setting decides). */
  emailVerified?: boolean;
  name?: string;
  avatarUrl?: string;
  roles: string[];
}

export interface TokenVerifier {
  readonly provider: TokenProvider['name'];
  /** The token's claims, or an AppError: 401 for a bad token, 503 when the provider's keys cannot be fetched. */
  verify(token: string, log?: FastifyBaseLogger): Promise<VerifiedToken>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

function claimsOf(payload: JWTPayload, provider: TokenProvider): VerifiedToken {
  return {
    idpUid: payload.sub as string,
    email: text(payload.email),
    emailVerified: provider.vouchesForEmails ? true : emailVerifiedClaim(payload.email_verified),
    name: text(payload.name) ?? text(payload.preferred_username),
    avatarUrl: text(payload.picture),
    roles: provider.roles(payload),
  };
}

/** `email_verified` as a boolean; some providers (Cognito) send it as the string "true"/"false". */
function emailVerifiedClaim(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return value === undefined || value === null ? undefined : false;
}

/** True when the failure is the provider's key set being unreachable, not the token being bad. */
function isKeySetOutage(error: unknown): boolean {
  if (!(error instanceof errors.JOSEError)) return true; // fetch failed: DNS, refused, reset
  return (
    error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error.code === 'ERR_JOSE_GENERIC'
  );
}

/** Whether the token was issued to `client`: named in `aud` (a string or a list), or its `azp`. */
export function isForClient(payload: JWTPayload, client: string): boolean {
  const aud = payload.aud;
  if (aud === client || (Array.isArray(aud) && aud.includes(client))) return true;
  return payload.azp === client;
}

export function createTokenVerifier(provider: TokenProvider): TokenVerifier {
  const cache = new TtlCache<VerifiedToken>();
  return {
    provider: provider.name,
    async verify(token, log) {
      const key = hashOf(token);
      const hit = cache.get(key);
      if (hit) return hit;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, provider.keys, {
          issuer: provider.issuer,
          audience: provider.audience,
          algorithms: ALLOWED_ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'exp'],
        }));
      } catch (error) {
        if (isKeySetOutage(error)) {
          log?.error({ err: (error as Error).message, provider: provider.name }, 'identity provider keys unavailable');
          throw serviceUnavailable('The identity provider cannot be reached');
        }
        // The reason helps operators; the token itself is never logged.
        log?.info({ reason: (error as { code?: string }).code ?? (error as Error).message }, 'bearer token refused');
        throw unauthorized('Invalid or expired token');
      }
      if (!text(payload.sub)) throw unauthorized('Invalid or expired token');
      if (provider.client !== undefined && !isForClient(payload, provider.client)) {
        log?.info({ reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' }, 'bearer token refused');
        throw unauthorized('Invalid or expired token');
      }
      const claims = claimsOf(payload, provider);
      cache.set(key, claims, Math.min((payload.exp as number) * 1000 - Date.now(), CACHE_MS));
      return claims;
    },
  };
}
