import type { FastifyInstance } from 'fastify';

export type HealthCheck = () => Promise<unknown>;

/**
 * What a check resolves to when it has something to tell besides UP, e.g. a warning that does not
 * make the service unready: `/health/ready` adds each entry (topic -> facts) under `details`.
 */
export class HealthDetails {
  constructor(readonly details: Record<string, Record<string, unknown>>) {}
}

/** Checks made with `degradedWhenDown`, with what their failure means. */
const degradedOnly = new WeakMap<HealthCheck, string>();

/**
 * A check whose failure leaves the service ready: it is reported DOWN under `checks` and its
 * `warning` under `details`, but `/health/ready` still answers 200. For a dependency the service
 * serves without (NATS for a service whose events wait in its outbox): taking every replica out
 * of rotation for it would turn a delay into an outage.
 */
export function degradedWhenDown(check: HealthCheck, warning: string): HealthCheck {
  const wrapped: HealthCheck = () => check();
  degradedOnly.set(wrapped, warning);
  return wrapped;
}

/** Apps whose shutdown has begun: their readiness fails from then on (check `accepting`). */
const shuttingDown = new WeakSet<FastifyInstance>();

/**
 * The first step of a graceful stop: readiness turns false so that load balancers stop sending
 * new requests, while the app still serves the ones that come (see SHUTDOWN_DELAY_MS). From now
 * on every response says `Connection: close` and its connection closes after it: a client's
 * keep-alive connection is not reused for a next request that could meet the closing server, and
 * the gateway takes the answer as "this replica is leaving" without waiting for its next health
 * check. (Fastify itself does the same once `close()` has begun; this covers the delay before.)
 */
export function markShuttingDown(app: FastifyInstance): void {
  if (shuttingDown.has(app)) return;
  shuttingDown.add(app);
  // Added only now, so the request path pays nothing before a shutdown.
  app.server.prependListener('request', (_request, response) => {
    response.shouldKeepAlive = false;
  });
}

/** Whether the app's stop has begun (`markShuttingDown`): e.g. to refuse WebSocket upgrades from then on. */
export function isShuttingDown(app: FastifyInstance): boolean {
  return shuttingDown.has(app);
}

/**
 * `/health/live` answers while the process serves HTTP; `/health/ready` also checks every
 * dependency (database, NATS, ...) and answers 503 naming the ones that are down. Its check
 * `accepting` fails once the shutdown has begun (`markShuttingDown`). A check that resolves to
 * HealthDetails stays UP; its entries appear under `details` (absent when no check has any). A
 * check made with `degradedWhenDown` is reported DOWN with its warning but leaves the service ready.
 * Nothing is cached: each probe asks every dependency again, so readiness follows an outage and
 * its end at the next probe.
 */
export function registerHealth(app: FastifyInstance, given: Record<string, HealthCheck>, timeoutMs = 2000): void {
  const checks: Record<string, HealthCheck> = {
    ...given,
    accepting: async () => {
      if (shuttingDown.has(app)) throw new Error('shutting down');
    },
  };
  const statusSchema = {
    type: 'object',
    properties: {
      status: { type: 'string' },
      checks: { type: 'object', additionalProperties: { type: 'string' } },
      details: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
    },
  };
  app.get('/health/live', { schema: { hide: true, response: { 200: statusSchema } } }, async () => ({ status: 'UP' }));
  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: statusSchema, 503: statusSchema } } },
    async (request, reply) => {
      const details: Record<string, Record<string, unknown>> = {};
      const results = await Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          try {
            const outcome = await withTimeout(check(), timeoutMs);
            if (outcome instanceof HealthDetails) Object.assign(details, outcome.details);
            return [name, 'UP'] as const;
          } catch (error) {
            const warning = degradedOnly.get(check);
            request.log.warn({ check: name, reason: (error as Error).message }, 'readiness check failed');
            if (warning !== undefined) details[name] = { warning };
            return [name, 'DOWN'] as const;
          }
        }),
      );
      const up = results.every(([name, s]) => s === 'UP' || degradedOnly.has(checks[name]));
      const body = { status: up ? 'UP' : 'DOWN', checks: Object.fromEntries(results) };
      return reply.status(up ? 200 : 503).send(Object.keys(details).length > 0 ? { ...body, details } : body);
    },
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]);
}
