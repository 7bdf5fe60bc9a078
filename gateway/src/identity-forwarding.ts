import { IDENTITY_HEADER, type Identity, mintIdentityToken } from '@wiki/auth';
import type { FastifyRequest } from 'fastify';
import { INTERNAL_KEY_HEADER, MCP_KEY_HEADER } from './auth/api-keys.js';
import { hashOf, TtlCache } from './ttl-cache.js';

/** Identity tokens live 60 s; one is reused for half of that, so a service never gets a nearly expired one. */
const TOKEN_TTL_SECONDS = 60;
const REUSE_MS = 30_000;

/** Mints (and briefly reuses) the `x-wiki-identity` token for a caller. */
export class IdentityTokens {
  private readonly cache = new TtlCache<string>();

  constructor(private readonly secret: string) {}

  async tokenFor(identity: Identity): Promise<string> {
    const key = hashOf(
      identity.kind,
      identity.userId,
      identity.email,
      identity.name,
      identity.avatarUrl,
      identity.idpUid,
      (identity.roles ?? []).join('\u0002'),
    );
    const hit = this.cache.get(key);
    if (hit) return hit;
    const token = await mintIdentityToken(this.secret, identity, TOKEN_TTL_SECONDS);
    this.cache.set(key, token, REUSE_MS);
    return token;
  }
}

/** Credentials the gateway has consumed: services trust `x-wiki-identity` only, so they never see these. */
const CONSUMED_CREDENTIALS = ['authorization', INTERNAL_KEY_HEADER, MCP_KEY_HEADER];

/**
 * The headers sent upstream: every inbound `x-wiki-*` header removed (a client cannot smuggle an
 * identity), the consumed credentials removed, then the gateway's identity token, the request id
 * and the usual forwarding headers added.
 */
export function upstreamHeaders(request: FastifyRequest, headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('x-wiki-') || CONSUMED_CREDENTIALS.includes(lower)) continue;
    out[name] = value;
  }
  if (request.identityToken) out[IDENTITY_HEADER] = request.identityToken;
  out['x-request-id'] = request.id;
  const forwardedFor = request.headers['x-forwarded-for'];
  out['x-forwarded-for'] = forwardedFor && request.ips && request.ips.length > 1 ? `${forwardedFor}, ${request.socket.remoteAddress}` : request.ip;
  out['x-forwarded-proto'] = request.protocol;
  out['x-forwarded-host'] = request.host;
  return out;
}
