import type { Env } from '@wiki/config';
import { flushTracing, readTraceContext, startSpan, startTracing, type TraceSpan } from '@wiki/tracing';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, when tracing is on (set by traceRequests). */
    traceSpan: TraceSpan | null;
  }
}

export interface TraceRequestsOptions {
  /**
   * Whether a `traceparent` header the request carries is the parent of its span. True for the
   * services (their callers are the gateway and peer services); the gateway, which faces clients,
   * says false and starts a trace of its own for every request.
   */
  trustTraceparent: boolean;
  /** The part's own environment, which says whether and where it traces. */
  env: Env;
}

/**
 * Probes are not traced: they come every few seconds and would bury the requests. (Scrapes never
 * reach the app: `/metrics` has its own listener, metrics.ts.)
 */
function untraced(route: string | undefined): boolean {
  return route?.startsWith('/health/') === true;
}

/**
 * Turns tracing on for the service when the environment configures it (libs/tracing settings.ts),
 * then: a server span per request, named by method and route pattern (never the raw URL), with the
 * status and marked failed on a 5xx. Nothing is registered when tracing is off, so requests then
 * pay nothing. The span is made current twice: when the request arrives, and again after the body
 * was read (the parser's callbacks come from the socket, outside the request's context), so that
 * hooks and handlers, and the requests and events they make, are its children.
 */
export async function traceRequests(
  app: FastifyInstance,
  service: string,
  options: TraceRequestsOptions,
): Promise<void> {
  if (!(await startTracing(service, options.env))) return;
  app.decorateRequest('traceSpan', null);
  // Spans still buffered go out before the process ends (the batch would wait up to 5 s).
  app.addHook('onClose', async () => flushTracing());

  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = request.routeOptions.url;
    if (untraced(route)) return done();
    const span = startSpan(service, {
      name: route ? `${request.method} ${route}` : request.method,
      kind: 'server',
      parent: options.trustTraceparent ? (readTraceContext(request.headers) ?? 'root') : 'root',
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': request.url.split('?')[0],
        'wiki.request_id': request.id,
      },
    });
    request.traceSpan = span;
    if (!span) return done();
    span.run(done);
  });

  app.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.traceSpan) request.traceSpan.run(done);
    else done();
  });

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    endSpan(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    endSpan(request, undefined);
    done();
  });
}

function endSpan(request: FastifyRequest, status: number | undefined): void {
  const span = request.traceSpan;
  if (!span) return;
  request.traceSpan = null;
  if (status === undefined) span.setAttribute('wiki.aborted', true);
  else span.setAttribute('http.response.status_code', status);
  if (status === undefined || status >= 500) span.fail();
  span.end();
}
