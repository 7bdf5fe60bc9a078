import type { Identity } from '@wiki/auth';
import { unauthorized } from '@wiki/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Access, accessFor } from '../access.js';
import type { IdentityTokens } from '../identity-forwarding.js';
import type { RateLimiter } from '../rate-limit.js';
import { pathOf } from '../routing.js';
import { INTERNAL_KEY_HEADER, MCP_KEY_HEADER, type McpKeys, mcpKeyIdOf, screenInternalKey } from './api-keys.js';
import { type GuessingBudget, GuessingThrottled } from './guessing.js';
import type { LocalUsers } from './local-users.js';
import type { TokenVerifier } from './token-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller as the gateway verified them; null on public routes. */
    caller: Identity | null;
    /** The `x-wiki-identity` token forwarded upstream for `caller`. */
    identityToken: string | null;
  }
}

export interface GatekeeperParts {
  verifier: TokenVerifier;
  localUsers: LocalUsers;
  mcpKeys: McpKeys;
  identityTokens: IdentityTokens;
  rateLimiter: RateLimiter;
  guessingBudget: GuessingBudget;
  internalApiKey: string;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * Authenticates every request before routing (ARCHITECTURE 2.1, 5.13): each area accepts exactly
 * one kind of credential, so an MCP key works only on /mcp/**, the internal key only on
 * /internal/**, and a Bearer token nowhere else. Then counts the request against the verified
 * user's rate limit, or the client IP's when nobody was verified, and only then refuses a bad
 * credential (so guessing credentials is rate-limited too).
 *
 * Refused credentials also spend the client IP's guessing budget (guessing.ts): once it is spent,
 * a credential that fails is answered 429 without further work, and a valid one is still served,
 * since many people may share the address. A missing credential guesses nothing and counts nothing.
 */
export function registerGatekeeper(app: FastifyInstance, parts: GatekeeperParts): void {
  const { verifier, localUsers, mcpKeys, identityTokens, rateLimiter, guessingBudget, internalApiKey } = parts;

  async function authenticate(
    access: Exclude<Access, 'probe' | 'static' | 'public' | 'optional'>,
    request: FastifyRequest,
  ): Promise<Identity> {
    switch (access) {
      case 'internal': {
        const key = header(request, INTERNAL_KEY_HEADER);
        if (!key) throw unauthorized('A valid X-Internal-Api-Key is required');
        await guessingBudget.judge(screenInternalKey(key, internalApiKey), request.ip, request.log);
        return { kind: 'internal', roles: [] };
      }
      case 'mcp': {
        const key = header(request, MCP_KEY_HEADER);
        if (!key) throw unauthorized('A valid X-Mcp-Api-Key is required');
        const screened = mcpKeys.screen(key, request.id, request.log);
        const owner = await guessingBudget.judge(screened, request.ip, request.log);
        return {
          kind: 'mcp',
          userId: owner.userId,
          email: owner.email,
          name: owner.name,
          avatarUrl: owner.avatarUrl ?? null,
          idpUid: owner.idpUid,
          roles: [],
          keyId: mcpKeyIdOf(key),
        };
      }
      case 'user': {
        const token = BEARER.exec(header(request, 'authorization') ?? '')?.[1];
        if (!token) throw unauthorized('A Bearer token is required');
        const claims = await guessingBudget.judge(verifier.screen(token, request.log), request.ip, request.log);
        const user = await localUsers.resolve(claims, request.id, request.log);
        return {
          kind: 'user',
          userId: user.id,
          email: user.email ?? claims.email,
          // The workspace service's stored pair (email, verified) decides: never the claim alone.
          emailVerified: user.emailVerified === true,
          name: user.name ?? claims.name,
          avatarUrl: user.avatarUrl ?? claims.avatarUrl ?? null,
          idpUid: user.idpUid ?? claims.idpUid,
          roles: claims.roles,
        };
      }
    }
  }

  app.decorateRequest('caller', null);
  app.decorateRequest('identityToken', null);

  app.addHook('onRequest', async (request, reply) => {
    const given = accessFor(request.method, pathOf(request.url));
    if (given === 'probe' || given === 'static') return;
    // An optional credential that was sent is checked like a required one; without one, public.
    const access = given === 'optional' ? (header(request, 'authorization') ? 'user' : 'public') : given;

    let caller: Identity | null = null;
    let refusal: unknown;
    if (access !== 'public') {
      try {
        caller = await authenticate(access, request);
      } catch (error) {
        // Over the guessing budget: answered without further work (no rate check either).
        if (error instanceof GuessingThrottled) {
          reply.header('retry-after', error.retryAfterSeconds);
          throw error;
        }
        refusal = error;
      }
    }

    // The collaboration server is trusted infrastructure: its internal calls are not limited.
    if (caller?.kind !== 'internal') {
      await rateLimiter.check(
        caller?.userId ? { kind: 'user', id: caller.userId } : { kind: 'ip', id: request.ip },
        reply,
        request.log,
        // A verified caller's check also learns whether its address is over the guessing budget.
        caller ? request.ip : undefined,
      );
    }
    if (refusal) {
      if (access === 'user') reply.header('www-authenticate', 'Bearer');
      throw refusal;
    }
    if (caller) {
      request.caller = caller;
      request.identityToken = await identityTokens.tokenFor(caller);
      request.userId = caller.userId ?? null;
    }
  });
}
