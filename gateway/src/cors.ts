import type { FastifyInstance } from 'fastify';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type, x-request-id, x-mcp-api-key, last-event-id';
const EXPOSED_HEADERS = 'x-request-id, retry-after, content-disposition, www-authenticate, x-total-count';
const PREFLIGHT_MAX_AGE_S = '600';

/**
 * Whether a browser page at `origin` may talk to the gateway: its own origin (the wiki served
 * from the same host) or one listed in CORS_ORIGINS.
 */
export function originAllowed(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * CORS for browser clients on other origins (CORS_ORIGINS, none by default). Runs before
 * authentication: a preflight carries no credential and is answered here (204), and an answer
 * to a listed origin names it in Access-Control-Allow-Origin. Credentials travel in headers
 * (Bearer), never cookies, so Allow-Credentials is not sent.
 */
export function registerCors(app: FastifyInstance, corsOrigins: readonly string[]): void {
  if (corsOrigins.length === 0) return;
  const allowed = new Set(corsOrigins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_S)
        .status(204)
        .send();
      return reply;
    }
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  });
}
