import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CLIENT_ADDRESS_HEADER, UPGRADE_TICKET_HEADER } from '@wiki/auth';
import { AppError, envelope, errorResponses, nullableString, object, success, Type } from '@wiki/http';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { type GuessingBudget, GuessingThrottled } from './auth/guessing.js';
import type { LocalUsers } from './auth/local-users.js';
import type { TokenVerifier, VerifiedToken } from './auth/token-verifier.js';
import { clientAddressOf } from './client-address.js';
import { originAllowed } from './cors.js';
import type { RateLimiter } from './rate-limit.js';
import { isConnectError, type Replicas } from './replicas.js';
import { type AwaitingTokenOptions, UpgradesAwaitingToken } from './upgrades-awaiting-token.js';

/** Where editors open the collaboration WebSocket (ARCHITECTURE 5.15); `/api/v1/collab` too. */
export const COLLAB_PATHS = new Set(['/collab', '/api/v1/collab']);
const UPSTREAM_CONNECT_MS = 3_000;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function refuse(socket: Duplex, status: number, text: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${extra}Content-Length: 0\r\n\r\n`, () =>
    socket.destroy(),
  );
}

function tooManyRequests(socket: Duplex, retryAfterSeconds: number): void {
  refuse(socket, 429, 'Too Many Requests', `Retry-After: ${retryAfterSeconds}\r\n`);
}

export interface CollabUpgradeParts {
  /** CORS_ORIGINS (settings.ts): the other origins a browser may connect from. */
  corsOrigins: readonly string[];
  verifier: TokenVerifier;
  replicas: Replicas;
  rateLimiter: RateLimiter;
  guessingBudget: GuessingBudget;
  trustProxy: FastifyServerOptions['trustProxy'];
  awaitingToken: AwaitingTokenOptions;
}

/** Request headers of an upgrade not sent to collab: the consumed credentials and the trace context. */
const NOT_PASSED = new Set(['authorization', 'cookie', 'traceparent', 'tracestate']);

/** The raw header block of a response, as received (repeated headers kept). */
function headerBlock(status: number, message: string, rawHeaders: string[]): string {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/**
 * The WebSocket upgrade of `/collab`, proxied to the collaboration server (undici, which proxies
 * every HTTP route, does not carry upgrades). A browser may connect only from the gateway's own
 * origin or one of CORS_ORIGINS; clients that send no Origin (servers, scripts) are not browsers
 * and pass. Inbound `x-wiki-*` headers are dropped, like on every proxied request.
 *
 * The Hocuspocus provider sends the user's token inside the WebSocket (its first message), not
 * with the upgrade, so the collaboration server has it verified here, by the same verifier and
 * local-user lookup as a REST request (`POST /api/v1/internal/collab/identity`, below), before
 * it opens a document. Sockets open at shutdown are closed with the gateway. The collaboration
 * server's replica is picked like a REST request's, and a refused connection tries another once.
 *
 * Guessing costs here as on REST (auth/guessing.ts): a token sent with the upgrade is judged like
 * a REST credential (a refusal counts against the address; over budget, a failing one is a 429 and
 * a valid one is served). An upgrade without a token counts as a refused credential too, until a
 * valid in-protocol token on its socket redeems it: the gateway hands collab a ticket with the
 * upgrade (UPGRADE_TICKET_HEADER), and collab hands it back with the token. From an address over
 * its budget, such an upgrade must also hold one of the address's few waiting slots until it is
 * redeemed (upgrades-awaiting-token.ts).
 */
export function registerCollabUpgrade(app: FastifyInstance, parts: CollabUpgradeParts): void {
  const { corsOrigins, verifier, replicas, rateLimiter, guessingBudget } = parts;
  const clientAddress = clientAddressOf(parts.trustProxy);
  const awaitingToken = new UpgradesAwaitingToken(rateLimiter, parts.awaitingToken, app.log);
  // Upgraded sockets keep the HTTP server from closing: they are ended before it closes.
  const open = new Set<Duplex>();
  app.addHook('preClose', async () => {
    for (const socket of open) socket.destroy();
  });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    void upgrade(request, socket, head);
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const [path, query] = (request.url ?? '').split('?', 2) as [string, string | undefined];
    if (!COLLAB_PATHS.has(path) || (request.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      return refuse(socket, 404, 'Not Found');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin, request.headers.host, corsOrigins)) {
      return refuse(socket, 403, 'Forbidden');
    }
    const address = clientAddress(request);
    const headers: Record<string, string | string[]> = {};
    // A client that sends its token with the upgrade (a header, or ?token= where a browser cannot
    // set one) has it checked here, like a REST request; the provider's in-protocol token is
    // checked when it arrives (POST /internal/collab/identity below).
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1] ?? tokenParameter(query);
    if (presented !== undefined) {
      try {
        await guessingBudget.judge(verifier.screen(presented, app.log), address, app.log);
      } catch (error) {
        if (error instanceof GuessingThrottled) return tooManyRequests(socket, error.retryAfterSeconds);
        if (error instanceof AppError && error.code === 'UNAUTHORIZED') return refuse(socket, 401, 'Unauthorized');
        return refuse(socket, 503, 'Service Unavailable');
      }
    } else {
      const ticket = randomUUID();
      const { counted, overMs } = await rateLimiter.countUpgradeWithoutToken(address, ticket, app.log);
      if (counted) headers[UPGRADE_TICKET_HEADER] = ticket;
      if (overMs > 0 && !awaitingToken.admit(address, ticket, socket)) return tooManyRequests(socket, 1);
    }
    if (socket.destroyed) return;

    for (const [name, value] of Object.entries(request.headers)) {
      // A client's trace context is not passed on (see createApp's trustTraceparent in app.ts).
      if (value === undefined || name.startsWith('x-wiki-') || NOT_PASSED.has(name)) continue;
      headers[name] = value;
    }
    const given = request.headers['x-request-id'];
    headers['x-request-id'] = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    headers[CLIENT_ADDRESS_HEADER] = address;
    const clientIp = (socket as Socket).remoteAddress ?? '';
    headers['x-forwarded-for'] = request.headers['x-forwarded-for']
      ? `${request.headers['x-forwarded-for']}, ${clientIp}`
      : clientIp;

    let upstream = connect(replicas.pick('collab') as string, true);
    socket.on('error', () => upstream.destroy());

    function connect(replica: string, retry: boolean) {
      const target = new URL(replica);
      const attempt = httpRequest({
        host: target.hostname,
        port: target.port || 80,
        method: 'GET',
        path: `/collab${forwardedQuery(query)}`,
        headers,
        timeout: UPSTREAM_CONNECT_MS,
      });
      attempt.on('timeout', () => attempt.destroy(new Error('collab upstream timed out')));
      attempt.on('error', (error) => {
        if (isConnectError(error)) {
          replicas.markDown('collab', replica);
          const other = retry && !socket.destroyed ? replicas.pick('collab', replica) : undefined;
          if (other !== undefined) {
            upstream = connect(other, false);
            return;
          }
        }
        app.log.warn({ err: error }, 'collab upgrade: the collaboration server cannot be reached');
        if (socket.writable) refuse(socket, 503, 'Service Unavailable');
      });
      wire(attempt, socket, head);
      attempt.end();
      return attempt;
    }
  }

  function wire(upstream: ReturnType<typeof httpRequest>, socket: Duplex, head: Buffer): void {
    upstream.on('response', (response) => {
      // The collaboration server refused the upgrade: pass its answer on.
      socket.write(headerBlock(response.statusCode ?? 502, response.statusMessage ?? '', response.rawHeaders));
      response.pipe(socket);
    });
    upstream.on('upgrade', (response, upstreamSocket, upstreamHead) => {
      upstream.setTimeout(0);
      socket.write(headerBlock(101, 'Switching Protocols', response.rawHeaders));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      const close = () => {
        socket.destroy();
        upstreamSocket.destroy();
      };
      socket.on('close', close);
      upstreamSocket.on('close', close);
      upstreamSocket.on('error', close);
      upstreamSocket.pipe(socket);
      socket.pipe(upstreamSocket);
    });
  }
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/** The query string passed on, without a token (it was checked here and goes no further). */
function forwardedQuery(query: string | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams(query);
  params.delete('token');
  const rest = params.toString();
  return rest === '' ? '' : `?${rest}`;
}

function tokenParameter(query: string | undefined): string | undefined {
  if (query === undefined) return undefined;
  return new URLSearchParams(query).get('token') || undefined;
}

export interface CollabIdentityParts {
  verifier: TokenVerifier;
  localUsers: LocalUsers;
  rateLimiter: RateLimiter;
  guessingBudget: GuessingBudget;
}

/**
 * For the collaboration server only (internal key; the gatekeeper checks it): the user behind a
 * provider token, verified and resolved exactly as for a REST request. 401 for a bad token.
 * `clientAddress` is the editor's, as the gateway put it on the upgrade (CLIENT_ADDRESS_HEADER):
 * the token is judged against its guessing budget as on REST (a refusal counts; over budget, a
 * failing token is a 429 and a valid one is served). `upgradeTicket` is the ticket of an upgrade
 * that came without a token (UPGRADE_TICKET_HEADER), counted as a refused credential: a valid token
 * redeems it, and a refused one takes over its count (one count per guess, not two). Both are optional so
 * that a collaboration server of the previous release keeps working during a rolling update; its
 * calls count nothing.
 */
export function registerCollabIdentity(server: FastifyInstance, parts: CollabIdentityParts): void {
  server.post<{ Body: { token: string; clientAddress?: string; upgradeTicket?: string } }>(
    '/api/v1/internal/collab/identity',
    {
      schema: {
        hide: true,
        body: object(
          {
            token: Type.String({ minLength: 1, maxLength: 16_384 }),
            clientAddress: Type.String({ minLength: 1, maxLength: 64 }),
            upgradeTicket: Type.String({ minLength: 1, maxLength: 64 }),
          },
          ['token'],
        ),
        response: {
          200: envelope(
            object({
              id: Type.String(),
              name: Type.String(),
              email: nullableString,
              idpUid: Type.String(),
            }),
          ),
          ...errorResponses(400, 401, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { token, clientAddress, upgradeTicket } = request.body;
      let claims: VerifiedToken;
      try {
        const screened = parts.verifier.screen(token, request.log);
        claims = await parts.guessingBudget.judge(screened, clientAddress, request.log, upgradeTicket);
      } catch (error) {
        if (error instanceof GuessingThrottled) reply.header('retry-after', error.retryAfterSeconds);
        throw error;
      }
      if (clientAddress !== undefined && upgradeTicket !== undefined) {
        await parts.rateLimiter.redeemUpgrade(clientAddress, upgradeTicket, request.log);
      }
      const user = await parts.localUsers.resolve(claims, request.id, request.log);
      return success({
        id: user.id,
        name: user.name ?? claims.name ?? claims.email ?? 'Unknown user',
        email: user.email ?? claims.email ?? null,
        idpUid: user.idpUid ?? claims.idpUid,
      });
    },
  );
}
