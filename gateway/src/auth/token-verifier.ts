import { hashOf, LocalCache } from '@wiki/cache';
import { serviceUnavailable, unauthorized } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';
import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { type Screened, StaleCredential } from './guessing.js';
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
/**
 * A token whose signature did not verify is refused from memory for this long: a signature that
 * failed never verifies later (a key id names one key).
 */
const REFUSED_CACHE_MS = 60_000;

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
  /**
   * What can be told of the token without checking its signature or fetching keys (guessing.ts).
   * A `known` or `unknown` verdict carries the full check: the token's claims, or an AppError
   * (401 for a bad token, 503 when the provider's keys cannot be fetched).
   */
  screen(token: string, log?: FastifyBaseLogger): Screened<VerifiedToken>;
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

/** Whether `aud` names `audience`, as jose checks it. */
function audienceIncludes(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

type KeySet = JWTVerifyGetKey & { jwks?: () => JSONWebKeySet | undefined; coolingDown?: boolean; fresh?: boolean };

/**
 * True when no key of the provider's set can have signed a token with this key id, and the set
 * will not be fetched again for it: a local set, or a remote one jose fetched recently (within
 * its cooldown, so it would not fetch on an unknown key id). A rotated-in key is therefore never
 * refused here for longer than jose itself refuses it.
 */
function certainlyNoKey(keys: KeySet, kid: unknown): boolean {
  if (typeof kid !== 'string' || typeof keys.jwks !== 'function') return false;
  if ('coolingDown' in keys && !(keys.coolingDown && keys.fresh)) return false;
  const set = keys.jwks();
  return set !== undefined && !set.keys.some((key) => key.kid === kid);
}

/**
 * Why the token would certainly be refused, read from its header and claims without checking
 * the signature (the same rules jwtVerify and `verify` apply after it), or `expired` when only its
 * expiry is past; undefined when only the signature can tell.
 */
function precheck(token: string, provider: TokenProvider): { reason: string; claim?: string } | 'expired' | undefined {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    payload = decodeJwt(token);
  } catch {
    return { reason: 'ERR_JWT_INVALID' };
  }
  if (typeof header.alg !== 'string' || !ALLOWED_ALGORITHMS.includes(header.alg)) {
    return { reason: 'ERR_JOSE_ALG_NOT_ALLOWED' };
  }
  const claimFailed = (claim: string) => ({ reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim });
  if (payload.iss !== provider.issuer) return claimFailed('iss');
  if (provider.audience !== undefined && !audienceIncludes(payload.aud, provider.audience)) return claimFailed('aud');
  if (provider.client !== undefined && !isForClient(payload, provider.client)) return claimFailed('aud');
  if (!text(payload.sub)) return claimFailed('sub');
  if (typeof payload.exp !== 'number') return claimFailed('exp');
  // jose's own rule and clock: expired when exp <= now - tolerance, in whole seconds. Before the
  // key id: a tab left open since its provider's old key was retired is still a stale session.
  if (payload.exp <= Math.floor(Date.now() / 1000) - CLOCK_TOLERANCE_SECONDS) return 'expired';
  if (certainlyNoKey(provider.keys as KeySet, header.kid)) return { reason: 'ERR_JWKS_NO_MATCHING_KEY' };
  return undefined;
}

const invalidToken = () => unauthorized('Invalid or expired token');

export function createTokenVerifier(provider: TokenProvider): TokenVerifier {
  const cache = new LocalCache<VerifiedToken>({ maxEntries: 10_000 });
  /** Tokens whose signature failed (REFUSED_CACHE_MS). */
  const refused = new LocalCache<true>({ maxEntries: 10_000, ttlMs: REFUSED_CACHE_MS });
  /** Tokens verified before, until they expire: over budget, their re-check needs no free slot. */
  const vouched = new LocalCache<true>({ maxEntries: 10_000 });

  async function check(token: string, key: string, log?: FastifyBaseLogger): Promise<VerifiedToken> {
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
      if (error instanceof errors.JWSSignatureVerificationFailed) refused.set(key, true);
      if (error instanceof errors.JWTExpired) throw new StaleCredential('Invalid or expired token');
      throw invalidToken();
    }
    if (!text(payload.sub)) throw invalidToken();
    if (provider.client !== undefined && !isForClient(payload, provider.client)) {
      log?.info({ reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' }, 'bearer token refused');
      throw invalidToken();
    }
    const claims = claimsOf(payload, provider);
    const leftMs = (payload.exp as number) * 1000 - Date.now();
    cache.set(key, claims, { ttlMs: Math.min(leftMs, CACHE_MS) });
    vouched.set(key, true, { ttlMs: leftMs });
    return claims;
  }

  function screen(token: string, log?: FastifyBaseLogger): Screened<VerifiedToken> {
    const key = hashOf(token);
    const hit = cache.get(key);
    if (hit) return { verdict: 'known', check: () => Promise.resolve(hit) };
    if (refused.get(key)) return { verdict: 'refused', error: invalidToken() };
    const problem = precheck(token, provider);
    if (problem === 'expired') return { verdict: 'stale', error: new StaleCredential('Invalid or expired token') };
    if (problem) {
      log?.info(problem, 'bearer token refused');
      return { verdict: 'refused', error: invalidToken() };
    }
    return { verdict: vouched.get(key) ? 'known' : 'unknown', check: () => check(token, key, log) };
  }

  return { provider: provider.name, screen };
}
