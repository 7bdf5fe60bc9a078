import { type JWTPayload, jwtVerify, SignJWT } from 'jose';

/** How the caller proved who they are at the gateway. */
export type CredentialKind = 'user' | 'mcp' | 'internal' | 'service';

/** The caller as the gateway verified it, forwarded to services in `x-wiki-identity`. */
export interface Identity {
  kind: CredentialKind;
  /** Local user id; absent for `internal` and `service` callers. */
  userId?: string;
  email?: string;
  /**
   * Whether the identity provider vouches for `email` (`email_verified`). Only a verified email
   * may match invitations or link accounts (ARCHITECTURE 5.13); absent on kinds without a user.
   */
  emailVerified?: boolean;
  name?: string;
  avatarUrl?: string | null;
  /** The identity provider's subject. */
  idpUid?: string;
  /** Realm and client roles from the identity provider. */
  roles?: string[];
  /** For `service` tokens: the calling service. */
  service?: string;
  /**
   * For `mcp` tokens: which of the user's keys was presented, as a digest of it (never the key):
   * what MCP_SESSIONS_PER_KEY counts by.
   */
  keyId?: string;
}

export const IDENTITY_HEADER = 'x-wiki-identity';
/**
 * The internal API key, which a caller of the gateway's internal routes presents instead of a user
 * token (the collaboration server, spec 4.10); the gateway drops it before passing a request on.
 */
export const INTERNAL_API_KEY_HEADER = 'x-internal-api-key';
/**
 * The editor's address, as the gateway derived it, on the collab WebSocket upgrade it passes on:
 * collab hands it back when it has a token verified, so refusals count against the editor. Like
 * every `x-wiki-*` header, the gateway drops a client's own.
 */
export const CLIENT_ADDRESS_HEADER = 'x-wiki-client-address';
/**
 * The ticket of a collab WebSocket upgrade that came without a token, which the gateway counts as a
 * refused credential until collab hands the ticket back with a valid in-protocol token.
 */
export const UPGRADE_TICKET_HEADER = 'x-wiki-upgrade-ticket';
const ISSUER = 'wiki-gateway';
const AUDIENCE = 'wiki-services';
/** Clock skew allowed between the part that minted a token and the one checking it. */
export const IDENTITY_CLOCK_TOLERANCE_SECONDS = 5;

const keyCache = new Map<string, Uint8Array>();
function key(secret: string): Uint8Array {
  let k = keyCache.get(secret);
  if (!k) {
    k = new TextEncoder().encode(secret);
    keyCache.set(secret, k);
  }
  return k;
}

/** Signs the short-lived identity token (HS256 with INTERNAL_TOKEN_SECRET; it never leaves the cluster). */
export async function mintIdentityToken(secret: string, identity: Identity, ttlSeconds = 60): Promise<string> {
  const { userId, ...claims } = identity;
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`);
  if (userId) jwt.setSubject(userId);
  return jwt.sign(key(secret));
}

/** Mints a token for a service calling another service (kind `service`). */
export function mintServiceToken(secret: string, service: string, ttlSeconds = 60): Promise<string> {
  return mintIdentityToken(secret, { kind: 'service', service }, ttlSeconds);
}

/** A verified identity token's caller, and when (epoch ms) the token stops being valid. */
export interface VerifiedIdentity {
  identity: Identity;
  expiresAt: number;
}

/**
 * Verifies an identity token and says until when it holds. `exp` is required: jose checks it only
 * when present, and a token without it would be trusted forever by whoever holds it.
 */
export async function verifyIdentityTokenUntil(secret: string, token: string): Promise<VerifiedIdentity> {
  const { payload } = await jwtVerify(token, key(secret), {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['HS256'],
    clockTolerance: IDENTITY_CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp'],
  });
  const expiresAt = ((payload.exp as number) + IDENTITY_CLOCK_TOLERANCE_SECONDS) * 1000;
  return { identity: identityOf(payload), expiresAt };
}

export async function verifyIdentityToken(secret: string, token: string): Promise<Identity> {
  return (await verifyIdentityTokenUntil(secret, token)).identity;
}

function identityOf(payload: JWTPayload): Identity {
  const kind = payload.kind as CredentialKind;
  if (!['user', 'mcp', 'internal', 'service'].includes(kind)) throw new Error('identity token has an unknown kind');
  return {
    kind,
    userId: payload.sub,
    email: payload.email as string | undefined,
    emailVerified: typeof payload.emailVerified === 'boolean' ? payload.emailVerified : undefined,
    name: payload.name as string | undefined,
    avatarUrl: (payload.avatarUrl as string | null | undefined) ?? null,
    idpUid: payload.idpUid as string | undefined,
    roles: (payload.roles as string[] | undefined) ?? [],
    service: payload.service as string | undefined,
    keyId: typeof payload.keyId === 'string' ? payload.keyId : undefined,
  };
}

/**
 * Caches service tokens so a busy caller signs one every ~30 s, not one per request.
 */
export function serviceTokenSource(secret: string, service: string): () => Promise<string> {
  let cached: { token: string; until: number } | undefined;
  return async () => {
    const now = Date.now();
    if (!cached || cached.until < now)
      cached = { token: await mintServiceToken(secret, service, 60), until: now + 30_000 };
    return cached.token;
  };
}
