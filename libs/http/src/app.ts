import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { Env } from '@wiki/config';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { ErrorReason } from './error-reasons.js';
import { AppError, type ErrorDetail, errorBody } from './errors.js';
import { registerMetrics } from './metrics.js';
import { nulFieldError, nulFieldOfJson, refuseNulInUrls } from './nul-text.js';
import { dependencyOutage, OUTAGE_RETRY_AFTER_SECONDS } from './outage.js';
import { traceRequests } from './tracing.js';
import { useRequestValidation } from './validation.js';

export interface CreateAppOptions {
  /** Service name, stamped on every log line. */
  service: string;
  logLevel?: string;
  /** Max JSON body in bytes (ARCHITECTURE 5.14: 1 MiB by default). */
  bodyLimit?: number;
  /**
   * A body over the limit but under this many bytes is read to its end before the 413: a client
   * still sending (the gateway's proxy above all) would otherwise see the socket reset instead
   * of the answer. Larger ones get Fastify's immediate refusal and close. Default 32 MiB; 0 turns
   * this off (the gateway, which never parses proxied bodies).
   */
  drainOversizedUpTo?: number;
  /** Describes the service's routes in `/openapi.json` (the gateway merges them into /docs-ui). */
  openapi?: { title: string; description?: string };
  /**
   * Whether a request's `traceparent` header parents its span when tracing is on (tracing.ts).
   * Default true; the gateway, which faces clients, says false.
   */
  trustTraceparent?: boolean;
  /**
   * The part's environment (its Config's `env`): read for its tracing settings. Several parts may
   * share a process (npm start's one process), each with its own; default: the process's.
   */
  env?: Env;
  /** Extra Fastify options (tests may pass `logger: false`). */
  fastify?: Partial<FastifyServerOptions>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The user the request acts for, once authentication knows it: written on the access-log line.
     * Not a child logger per request: that costs a serialisation of its bindings on every request,
     * and the request id already ties the request's other lines to that one.
     */
    userId: string | null;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers never written to logs. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-internal-api-key"]',
  'req.headers["x-mcp-api-key"]',
  'req.headers["x-wiki-identity"]',
  'req.headers.cookie',
];

/**
 * The Fastify factory every service and the gateway start from: request ids, pino JSON logs,
 * the error envelope of ARCHITECTURE 5.1, JSON parsing that accepts an empty body, and the
 * OpenAPI description of the routes registered afterwards, and the figures `/metrics` tells (metrics.ts:
 * served on a listener of its own, never on the app's port).
 */
export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      base: { service: options.service },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logController: new OneLinePerRequest({ requestIdLogLabel: 'requestId' }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // A request that arrives on a kept-alive connection while the app closes is served (with
    // `Connection: close`), not refused with a 503: it reached a replica that still has its
    // database and NATS, and a refusal would be a failed request for the client.
    return503OnClosing: false,
    // The router refuses some URLs before any hook or handler runs (a path parameter over
    // maxParamLength, a malformed escape): they get the error envelope like every other refusal.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The URL is malformed';
      request.log.info({ code: error.code }, 'request refused by the router');
      return reply
        .status(400)
        .header('x-request-id', request.id)
        .send(errorBody('VALIDATION_ERROR', message, request.id, [{ field: 'path', message }]));
    },
    ...options.fastify,
  });

  app.decorateRequest('userId', null);
  await traceRequests(app, options.service, {
    trustTraceparent: options.trustTraceparent ?? true,
    env: options.env ?? process.env,
  });
  closeConnectionsAsTheyIdle(app);
  useRequestValidation(app);
  refuseNulInUrls(app);
  answerOversizedBodiesCleanly(app, options.bodyLimit ?? 1024 * 1024, options.drainOversizedUpTo ?? 32 * 1024 * 1024);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerMetrics(app, options.service);

  // Bodiless POSTs (publish, leave, accept...) often still say application/json.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(
        new AppError('VALIDATION_ERROR', 'Request body is not valid JSON', [
          { field: 'body', message: 'is not valid JSON' },
        ]),
        undefined,
      );
    }
    const nulField = nulFieldOfJson(text, parsed);
    if (nulField) return done(nulFieldError(nulField), undefined);
    done(null, parsed);
  });

  app.setErrorHandler((error: FastifyError & { details?: ErrorDetail[] }, request, reply) => {
    // A dependency that cannot be reached is an outage, not a bug: 503 and a warning, no stack.
    const outage = error instanceof AppError ? null : dependencyOutage(error);
    const mapped: MappedError = outage
      ? { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry later' }
      : mapError(error);
    if (outage)
      request.log.warn({ dependency: outage.dependency, reason: outage.reason }, `${outage.dependency} unavailable`);
    else if (mapped.status === 503)
      request.log.warn({ code: mapped.code, message: mapped.message }, 'request unavailable');
    else if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: mapped.code, reason: mapped.reason, message: mapped.message }, 'request refused');
    if (mapped.code === 'RATE_LIMITED' && !reply.getHeader('retry-after')) reply.header('retry-after', '60');
    if (mapped.status === 503 && !reply.getHeader('retry-after'))
      reply.header('retry-after', OUTAGE_RETRY_AFTER_SECONDS);
    return reply
      .status(mapped.status)
      .send(errorBody(mapped.code, mapped.message, request.id, mapped.details, mapped.reason));
  });

  app.setNotFoundHandler((request, reply) => {
    return reply
      .status(404)
      .send(errorBody('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`, request.id));
  });

  if (options.openapi) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: { title: options.openapi.title, description: options.openapi.description, version: '1.0.0' },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            internalApiKey: { type: 'apiKey', in: 'header', name: 'X-Internal-Api-Key' },
            mcpApiKey: { type: 'apiKey', in: 'header', name: 'X-Mcp-Api-Key' },
          },
        },
        security: [{ bearer: [] }],
      },
      hideUntagged: false,
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }

  return app;
}

/**
 * `close()` waits for in-flight requests, but Node closes only the keep-alive connections that are
 * idle at that moment: one whose request finishes later stays open until the client drops it, and
 * holds the shutdown for the keep-alive timeout. While closing, idle connections are closed as they
 * turn up (a timer, not a per-request hook, so the hot path pays nothing).
 */
function closeConnectionsAsTheyIdle(app: FastifyInstance): void {
  app.addHook('preClose', (done) => {
    const timer = setInterval(() => app.server.closeIdleConnections(), 50);
    timer.unref();
    app.server.once('close', () => clearInterval(timer));
    done();
  });
}

/** See `CreateAppOptions.drainOversizedUpTo`. Multipart routes set their own limits. */
function answerOversizedBodiesCleanly(app: FastifyInstance, limitBytes: number, drainCapBytes: number): void {
  if (drainCapBytes <= limitBytes) return; // nothing to drain: no hook on every request
  app.addHook('onRequest', async (request) => {
    const length = Number(request.headers['content-length']);
    if (!Number.isFinite(length) || length <= limitBytes || length > drainCapBytes) return;
    if (request.headers['content-type']?.startsWith('multipart/')) return;
    for await (const _chunk of request.raw) {
      // discarded: only reading it to the end matters
    }
    throw new AppError('PAYLOAD_TOO_LARGE', `Request body is too large (at most ${limitBytes} bytes)`);
  });
}

/** One access-log line per request (method, path, status, time) instead of Fastify's two. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url.split('?')[0],
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.userId ? { userId: request.userId } : {}),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

interface MappedError {
  status: number;
  code: AppError['code'];
  message: string;
  details?: ErrorDetail[];
  reason?: ErrorReason;
}

function mapError(error: FastifyError & { details?: ErrorDetail[] }): MappedError {
  if (error instanceof AppError)
    return {
      status: error.statusCode,
      code: error.code,
      message: error.message,
      details: error.details,
      reason: error.reason,
    };
  if (error.validation) {
    const details = error.validation.map((v) => validationDetail(v as unknown as AjvError, error.validationContext));
    return {
      status: 400,
      code: 'VALIDATION_ERROR',
      message: details.map((d) => `${d.field} ${d.message}`).join('; '),
      details,
    };
  }
  const pgCode = (error as { code?: string }).code ?? (error.cause as { code?: string } | undefined)?.code;
  const name = error.name ?? '';
  if (pgCode === '23505' || name === 'UniqueIntegrityConstraintViolationError') {
    return { status: 409, code: 'CONFLICT', message: 'A resource with these values already exists' };
  }
  if (pgCode === '22P02') return { status: 400, code: 'VALIDATION_ERROR', message: 'A value has the wrong format' };
  // The last line of defence for text Postgres cannot store (a NUL, a lone surrogate in JSON) that
  // got past the checks at the edge: the client's data, so a 400, not a 500. slonik turns 22P02 into
  // an InvalidInputError (whose `name` is plain 'Error') without the code; its own misuse errors (a
  // programming bug) read differently.
  if (pgCode === '22021' || pgCode === '22P05') {
    return { status: 400, code: 'VALIDATION_ERROR', message: 'A text value holds characters that cannot be stored' };
  }
  if (error.constructor?.name === 'InvalidInputError' && /^invalid input (syntax|value)/i.test(error.message)) {
    return { status: 400, code: 'VALIDATION_ERROR', message: 'A value has the wrong format' };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content type' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'VALIDATION_ERROR', message: 'Request body is not valid JSON' };
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return { status, code: 'RATE_LIMITED', message: 'Too many requests' };
  if (status === 413) return { status, code: 'PAYLOAD_TOO_LARGE', message: error.message };
  if (status === 415) return { status, code: 'UNSUPPORTED_MEDIA_TYPE', message: error.message };
  if (status === 401) return { status, code: 'UNAUTHORIZED', message: error.message };
  if (status === 403) return { status, code: 'FORBIDDEN', message: error.message };
  if (status === 404) return { status, code: 'NOT_FOUND', message: error.message };
  if (status === 503) return { status, code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' };
  if (status >= 400 && status < 500) return { status: 400, code: 'VALIDATION_ERROR', message: error.message };
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' };
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns an ajv error into `{ field, message }` naming the field the client sent. */
function validationDetail(error: AjvError, context?: string): ErrorDetail {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = error.params.missingProperty as string | undefined;
  const field = [path, missing].filter(Boolean).join('.') || context || 'body';
  let message = error.message ?? 'is invalid';
  switch (error.keyword) {
    case 'required':
      message = 'is required';
      break;
    case 'maxLength':
      message = `must be at most ${error.params.limit} characters`;
      break;
    case 'minLength':
      message = error.params.limit === 1 ? 'must not be empty' : `must be at least ${error.params.limit} characters`;
      break;
    case 'pattern':
      message = error.params.pattern === '\\S' ? 'must not be blank' : `has an invalid format`;
      break;
    case 'format':
      message = `must be a valid ${error.params.format}`;
      break;
    case 'enum':
      message = `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
      break;
    case 'type':
      message = `must be ${error.params.type}`;
      break;
  }
  return { field, message };
}
