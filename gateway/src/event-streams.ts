import type { FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import type { ProxyTimeouts } from './proxy.js';

/**
 * Whether a request opens a response that stays open (Server-Sent Events): a client that asks for
 * `text/event-stream`, as every EventSource does. Such a response holds its upstream connection
 * for as long as the client stays, so it must not take one of the bounded pool the other requests
 * share: 128 open streams would otherwise leave every other request to that service waiting.
 */
export function isEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept?.includes('text/event-stream') ?? false;
}

/**
 * The dispatcher for event streams: one connection per stream, as many as there are streams (the
 * service bounds what one stream costs), no body timeout (a stream may stay quiet between its
 * heartbeats; the client's leaving ends it, see ResponseRelay). A stream the service ended leaves
 * its connection idle: kept a second for the reconnect that usually follows, not the service's
 * keep-alive hint (72 s), so connections of ended streams do not pile up on either side.
 */
export function eventStreamAgent(timeouts: ProxyTimeouts): Agent {
  return new Agent({
    pipelining: 1,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: 0,
    keepAliveTimeout: 1_000,
    keepAliveMaxTimeout: 1_000,
  });
}
