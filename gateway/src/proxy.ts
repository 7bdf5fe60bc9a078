import httpProxy from '@fastify/http-proxy';
import type { Config, ServiceName } from '@wiki/config';
import { errorBody, notFound } from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { upstreamHeaders } from './identity-forwarding.js';
import { API_PREFIX, pathOf, routeFor } from './routing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The service a proxied request goes to. */
    upstream: ServiceName | null;
  }
}

export interface ProxyTimeouts {
  /** How long to wait for a TCP (and TLS) connection to a service. */
  connectMs: number;
  /** How long to wait for a service's response headers (an export may take a minute). */
  headersMs: number;
}

export const DEFAULT_PROXY_TIMEOUTS: ProxyTimeouts = { connectMs: 3_000, headersMs: 90_000 };

/**
 * Forwards `/api/v1/**` to the service the routing table names, paths unchanged. Request and
 * response bodies are streamed, never parsed or buffered here (uploads, downloads and SSE pass
 * straight through); body limits are the services' business. A service that cannot be reached
 * gives a 503 envelope.
 */
export async function registerProxy(app: FastifyInstance, config: Config, timeouts: ProxyTimeouts = DEFAULT_PROXY_TIMEOUTS): Promise<void> {
  app.decorateRequest('upstream', null);

  await app.register(async (scope) => {
    // In this scope every body stays a stream, whatever its content type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    await scope.register(httpProxy, {
      prefix: API_PREFIX,
      rewritePrefix: API_PREFIX,
      upstream: '', // chosen per request by getUpstream
      proxyPayloads: false, // the parser above already passes bodies through
      disableRequestLogging: true,
      destroyAgent: true, // close upstream keep-alive sockets with the app
      preHandler: async (request) => {
        const service = routeFor(pathOf(request.url));
        if (!service) throw notFound('Route');
        request.upstream = service;
      },
      undici: {
        connections: 128,
        pipelining: 1,
        connect: { timeout: timeouts.connectMs, rejectUnauthorized: true },
        headersTimeout: timeouts.headersMs,
        // Server-Sent Events may stay quiet for long stretches; the client's disconnect ends them.
        bodyTimeout: 0,
      },
      replyOptions: {
        // Read at request time: URLs may be set after the gateway was built (tests, rolling config).
        getUpstream: (request) => config.urls[request.upstream as ServiceName],
        rewriteRequestHeaders: (request, headers) => upstreamHeaders(request as FastifyRequest, headers) as typeof headers,
        // No retries: a POST must not run twice, and a service's own 503 is its answer.
        retryDelay: () => null,
        onError: (reply, { error }) => unavailable(reply as unknown as FastifyReply, error),
      },
    });
  });
}

function unavailable(reply: FastifyReply, error: unknown): void {
  const service = reply.request.upstream ?? 'unknown';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  reply.request.log.warn({ service, code: cause?.code ?? (error as { code?: string }).code, err: cause?.message ?? (error as Error).message }, 'upstream unavailable');
  if (reply.sent) return;
  reply
    .code(503)
    .header('content-type', 'application/json; charset=utf-8')
    .header('retry-after', '5')
    .send(errorBody('SERVICE_UNAVAILABLE', `The ${service} service is unavailable`, reply.request.id));
}
