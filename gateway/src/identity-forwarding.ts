import { IDENTITY_HEADER, type Identity, mintIdentityToken } from '@wiki/auth';
import { keyOf, LocalCache } from '@wiki/cache';
import type { FastifyRequest } from 'fastify';
import { INTERNAL_KEY_HEADER, MCP_KEY_HEADER } from './auth/api-keys.js';

/** Identity tokens live 60 s; one is reused for half of that, so a service never gets a nearly expired one. */
const TOKEN_TTL_SECONDS = 60;
const REUSE_MS = 30_000;

/** Mints (and briefly reuses) the `x-wiki-identity` token for a caller. */
export class IdentityTokens {
  private readonly cache = new LocalCache<string>({ maxEntries: 10_000, ttlMs: REUSE_MS });

  constructor(private readonly secret: string) {}

  async tokenFor(identity: Identity): Promise<string> {
    const key = keyOf(
      identity.kind,
      identity.userId,
      identity.email,
      String(identity.emailVerified),
      identity.name,
      identity.avatarUrl,
      identity.idpUid,
      (identity.roles ?? []).join('\u0002'),
      identity.keyId,
    );
    const hit = this.cache.get(key);
    if (hit) return hit;
    const token = await mintIdentityToken(this.secret, identity, TOKEN_TTL_SECONDS);
    this.cache.set(key, token);
    return token;
  }
}

/** Credentials the gateway has consumed: services trust `x-wiki-identity` only, so they never see these. */
const CONSUMED_CREDENTIALS = new Set(['authorization', INTERNAL_KEY_HEADER, MCP_KEY_HEADER]);

/** Headers about one connection (RFC 9110 7.6.1): they never cross the proxy, in either direction. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
]);

/** Whether a (lower-case) header name is hop-by-hop and must not be forwarded. */
export function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-');
}

/**
 * Request headers the gateway itself answers for: `host` (the HTTP client sets the service's own),
 * `expect` (the gateway does not relay `100 Continue`), and the trace context: a client's is never
 * passed on (see createApp's trustTraceparent); with tracing on the gateway sends its own span's.
 */
const NOT_FORWARDED = new Set(['host', 'expect', 'traceparent', 'tracestate']);

/**
 * The headers sent upstream: every inbound `x-wiki-*` header removed (a client cannot smuggle an
 * identity), the consumed credentials and hop-by-hop headers removed (including any the
 * `Connection` header names), then the gateway's identity token, the request id and the usual
 * forwarding headers added. `headers` are Node's lower-case request headers.
 */
export function upstreamHeaders(request: FastifyRequest, headers: Record<string, unknown>): Record<string, unknown> {
  const named = connectionOptions(headers.connection);
  const out: Record<string, unknown> = {};
  for (const name in headers) {
    if (
      name.startsWith('x-wiki-') ||
      CONSUMED_CREDENTIALS.has(name) ||
      isHopByHop(name) ||
      NOT_FORWARDED.has(name) ||
      named?.has(name)
    )
      continue;
    out[name] = headers[name];
  }
  if (request.identityToken) out[IDENTITY_HEADER] = request.identityToken;
  out['x-request-id'] = request.id;
  // With tracing on, the gateway's span of the request is the service's parent.
  const trace = request.traceSpan?.context();
  if (trace) {
    out.traceparent = trace.traceparent;
    if (trace.tracestate) out.tracestate = trace.tracestate;
  }
  const forwardedFor = request.headers['x-forwarded-for'];
  out['x-forwarded-for'] =
    forwardedFor && request.ips && request.ips.length > 1
      ? `${forwardedFor}, ${request.socket.remoteAddress}`
      : request.ip;
  out['x-forwarded-proto'] = request.protocol;
  out['x-forwarded-host'] = request.host;
  return out;
}

/** The extra hop-by-hop header names a `Connection` header lists, lower-case; null when it lists none. */
export function connectionOptions(value: unknown): Set<string> | null {
  if (typeof value !== 'string' || value === 'keep-alive' || value === 'close') return null;
  return new Set(value.split(',').map((token) => token.trim().toLowerCase()));
}
