import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { ServiceName } from '@wiki/config';
import { errorBody, notFound } from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { Agent, type Dispatcher } from 'undici';
import { eventStreamAgent, isEventStream } from './event-streams.js';
import { connectionOptions, isHopByHop, upstreamHeaders } from './identity-forwarding.js';
import { isConnectError, mayRetryElsewhere, type Replicas, saysLeaving } from './replicas.js';
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

/** Request bodies up to this size are buffered before forwarding (see registerProxy). */
const BUFFERED_BODY_MAX = 64 * 1024;

const METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/**
 * Forwards `/api/v1/**` to the service the routing table names, paths unchanged. Request and
 * response bodies are never parsed here and, but for small request bodies, streamed (uploads,
 * downloads and SSE pass straight through); body limits are the services' business. A service that cannot be reached
 * gives a 503 envelope.
 *
 * Written on undici's `dispatch` rather than @fastify/http-proxy: the library's per-request work
 * (URL building and checks, header copies, a Readable per response, the send pipeline) made an
 * authenticated read through the gateway about 1.5 times slower (docs/DECISIONS.md). The response is written straight to the raw
 * socket after `reply.hijack()`; Fastify still logs it and runs onResponse hooks.
 */
export async function registerProxy(
  app: FastifyInstance,
  replicas: Replicas,
  timeouts: ProxyTimeouts = DEFAULT_PROXY_TIMEOUTS,
): Promise<void> {
  app.decorateRequest('upstream', null);

  // One agent, which keeps one connection pool per service origin.
  const agent = new Agent({
    connections: 128,
    pipelining: 1,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    // Server-Sent Events may stay quiet for long stretches; the client's disconnect ends them.
    bodyTimeout: 0,
  });
  const streams = eventStreamAgent(timeouts);
  // Destroy, not close: an open event stream would otherwise hold shutdown up.
  app.addHook('onClose', async () => {
    await Promise.all([agent.destroy(), streams.destroy()]);
  });

  await app.register(async (scope) => {
    // In this scope no body is parsed, whatever its content type. A small one with a declared
    // length is read into a Buffer: undici then sends it with the headers in one write, where a
    // stream costs a pipe, its events and a write per chunk. Anything else stays a stream.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, payload, done) => {
      const length = Number(request.headers['content-length']);
      if (!(length > 0 && length <= BUFFERED_BODY_MAX)) return done(null, payload);
      const chunks: Buffer[] = [];
      payload.on('data', (chunk: Buffer) => chunks.push(chunk));
      payload.once('error', (error) => done(error, undefined));
      payload.once('end', () => done(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    });

    const handler = (request: FastifyRequest, reply: FastifyReply): void => {
      const service = routeFor(pathOf(request.url));
      if (!service) throw notFound('Route');
      request.upstream = service;
      forward(isEventStream(request) ? streams : agent, replicas, service, request, reply);
    };
    scope.route({ method: METHODS, url: API_PREFIX, handler });
    scope.route({ method: METHODS, url: `${API_PREFIX}/*`, handler });
  });
}

/**
 * Sends the request to one of the service's replicas (picked per request: URLs may be set after
 * the gateway was built). A request that got no answer goes once to another replica when it
 * cannot run twice (mayRetryElsewhere: its connection was refused, or it is a read whose
 * connection broke) and its body can be sent again (none, or buffered); a streamed body was
 * handed to undici and is not replayed. An answer saying `Connection: close` takes its replica
 * out of rotation at once: it is stopping (docs/DECISIONS.md, rolling restarts).
 */
function forward(
  agent: Agent,
  replicas: Replicas,
  service: ServiceName,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.hijack();
  const body = isStream(request.body)
    ? uploadOf(request.body, reply.raw)
    : Buffer.isBuffer(request.body)
      ? request.body
      : undefined;
  const headers = upstreamHeaders(request, request.headers);
  if (!body) delete headers['content-length'];
  const relay = new ResponseRelay(request, reply);
  const send = (origin: string, retry: boolean) => {
    relay.leaving = () => replicas.markDown(service, origin);
    relay.failedWithoutAnswer = (error) => {
      if (!mayRetryElsewhere(request.method, error)) return false;
      if (isConnectError(error)) replicas.markDown(service, origin);
      const other = retry ? replicas.pick(service, origin) : undefined;
      if (other === undefined) return false;
      send(other, false);
      return true;
    };
    try {
      agent.dispatch(
        // No other retries: a POST must not run twice, and a service's own 503 is its answer.
        {
          origin,
          path: request.url,
          method: request.method as Dispatcher.HttpMethod,
          headers: headers as Record<string, string>,
          body,
        },
        relay,
      );
    } catch (error) {
      // An invalid origin or header: the service cannot be reached as configured.
      relay.onResponseError(null, error as Error);
    }
  };
  const origin = replicas.pick(service) as string;
  send(origin, !isStream(body));
}

function isStream(value: unknown): value is Readable {
  return typeof (value as Readable | undefined)?.pipe === 'function';
}

/**
 * How much of a body the gateway reads and drops after its answer went out before it closes the
 * connection instead: above the largest body a service takes (uploads, 25 MiB by default; the
 * services' 32 MiB drain), so an ordinarily refused upload keeps its connection.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * What undici sends upstream for a streamed body: a pipe from the client's body, never the body
 * itself. When a service answers before it has read the whole body (its router's 414 for an
 * over-long id, a refusal in a hook) or drops the connection while the body is sent (a body past
 * its drain cap), undici destroys the body it was sending, and an IncomingMessage it destroys
 * with the socket detached first (to spare the connection). The rest of the body then stays on
 * the client's connection with nobody to read it: the socket stays paused mid-body, Node does not
 * discard it (the body had been read from), and the next request on that keep-alive connection
 * is never parsed. So undici gets only the pipe; once the answer has gone out, what is left of
 * the body is read and dropped (as Node does with a body no handler read), and the connection
 * serves the client's next request. Only up to DRAIN_MAX_BYTES, though: past that the connection
 * is closed, so a refused upload cannot keep the gateway reading for as long as the client likes.
 */
function uploadOf(body: Readable, response: ServerResponse): Readable {
  // Taken now: a response lets go of its socket once it has finished.
  const connection = response.socket;
  const upload = new PassThrough();
  body.pipe(upload);
  // A client that breaks off its upload breaks off the upstream request too.
  body.once('error', (error) => upload.destroy(error));
  body.once('close', () => {
    if (!body.readableEnded) upload.destroy(new Error('client closed the connection mid-body'));
  });
  response.once('finish', () => {
    if (body.readableEnded || body.destroyed) return;
    body.unpipe(upload);
    upload.destroy();
    let drained = 0;
    body.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_MAX_BYTES) connection?.destroy();
    });
    body.resume();
  });
  return upload;
}

/** Writes the service's response to the client as it arrives, with backpressure both ways. */
class ResponseRelay implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  /** Called when no response came: true when the request was sent elsewhere instead. */
  failedWithoutAnswer: (error: Error) => boolean = () => false;
  /** Called when the answer says its replica is stopping. */
  leaving: () => void = () => undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    // A client that goes away stops the upstream request (an SSE stream, a slow export).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) this.controller?.abort(new Error('client closed the connection'));
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reply.raw.destroyed) controller.abort(new Error('client closed the connection'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (saysLeaving(headers.connection)) this.leaving();
    // Headers the gateway set before (rate limits), then the service's, then the request id.
    const out = this.reply.getHeaders() as OutgoingHttpHeaders;
    const named = connectionOptions(headers.connection);
    for (const name in headers) if (!isHopByHop(name) && !named?.has(name)) out[name] = headers[name];
    out['x-request-id'] = this.request.id;
    this.reply.raw.writeHead(statusCode, out);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const res = this.reply.raw;
    if (!res.write(chunk)) {
      controller.pause();
      res.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.reply.raw.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    const res = this.reply.raw;
    if (res.destroyed) return; // the client left; nobody to tell
    if (res.headersSent) {
      // Cut off mid-body: the client must see a broken response, not a short one.
      this.request.log.warn({ service: this.request.upstream, err: error.message }, 'upstream response broke off');
      res.destroy(error);
      return;
    }
    if (this.failedWithoutAnswer(error)) return;
    unavailable(this.request, this.reply, error);
  }
}

function unavailable(request: FastifyRequest, reply: FastifyReply, error: Error): void {
  const service = request.upstream ?? 'unknown';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  request.log.warn(
    { service, code: cause?.code ?? (error as { code?: string }).code, err: cause?.message ?? error.message },
    'upstream unavailable',
  );
  const body = JSON.stringify(errorBody('SERVICE_UNAVAILABLE', `The ${service} service is unavailable`, request.id));
  reply.raw.writeHead(503, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': '5',
    'x-request-id': request.id,
  });
  reply.raw.end(body);
}
