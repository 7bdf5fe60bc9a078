import { LocalCache } from '@wiki/cache';
import { forbidden, unauthorized } from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type CredentialKind, IDENTITY_HEADER, type Identity, verifyIdentityTokenUntil } from './identity.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller, or null when the request carried no valid identity token. */
    identity: Identity | null;
  }
}

export interface IdentityPluginOptions {
  secret: string;
}

/** A verified token keeps being valid until it expires: cache the result to skip the HMAC. */
const MAX_CACHE = 10_000;
/** Trust a verified token from the cache for at most this long, and never past its `exp`. */
const CACHE_MS = 30_000;

async function identityPlugin(app: FastifyInstance, options: IdentityPluginOptions): Promise<void> {
  const cache = new LocalCache<Identity>({ maxEntries: MAX_CACHE, ttlMs: CACHE_MS });
  app.decorateRequest('identity', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers[IDENTITY_HEADER];
    if (typeof header !== 'string' || header === '') return;
    const hit = cache.get(header);
    if (hit) {
      request.identity = hit;
    } else {
      try {
        const { identity, expiresAt } = await verifyIdentityTokenUntil(options.secret, header);
        cache.set(header, identity, { ttlMs: Math.min(CACHE_MS, expiresAt - Date.now()) });
        request.identity = identity;
      } catch (error) {
        request.log.warn({ err: (error as Error).message }, 'invalid identity token');
        return;
      }
    }
    request.userId = request.identity?.userId ?? null;
  });
}

export const identity = fp(identityPlugin, { name: 'wiki-identity', fastify: '5.x' });

/** The signed-in user (a `user` or `mcp` credential) or a 401. */
export function requireUser(request: FastifyRequest): Identity & { userId: string } {
  const id = request.identity;
  if (!id?.userId || (id.kind !== 'user' && id.kind !== 'mcp')) throw unauthorized();
  return id as Identity & { userId: string };
}

/** The signed-in caller as commands see it: who acts, and the profile to stamp on what they write. */
export interface Actor {
  userId: string;
  name?: string;
  email?: string;
  /** Whether the identity provider vouches for `email` (see Identity). */
  emailVerified?: boolean;
  avatarUrl?: string | null;
  idpUid?: string;
  /** The request the actor made: forwarded as `x-request-id` when serving it calls another service. */
  requestId?: string;
}

/** requireUser, narrowed to the Actor that commands take. */
export function requireActor(request: FastifyRequest): Actor {
  const id = requireUser(request);
  return {
    userId: id.userId,
    name: id.name,
    email: id.email,
    emailVerified: id.emailVerified,
    avatarUrl: id.avatarUrl,
    idpUid: id.idpUid,
    requestId: request.id,
  };
}

/** A preHandler that lets only the given credential kinds through. */
export function requireKind(...kinds: CredentialKind[]) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const id = request.identity;
    if (!id) throw unauthorized();
    if (!kinds.includes(id.kind)) throw forbidden('This route is not available to this credential');
  };
}
