import type { FastifyInstance } from 'fastify';

export type HealthCheck = () => Promise<unknown>;

/** Apps whose shutdown has begun: their readiness fails from then on (check `accepting`). */
const shuttingDown = new WeakSet<FastifyInstance>();

/**
 * The first step of a graceful stop: readiness turns false so that load balancers stop sending
 * new requests, while the app still serves the ones that come (see SHUTDOWN_DELAY_MS).
 */
export function markShuttingDown(app: FastifyInstance): void {
  shuttingDown.add(app);
}

/**
 * `/health/live` answers while the process serves HTTP; `/health/ready` also checks every
 * dependency (database, NATS, ...) and answers 503 naming the ones that are down. Its check
 * `accepting` fails once the shutdown has begun (`markShuttingDown`).
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
    properties: { status: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
  };
  app.get('/health/live', { schema: { hide: true, response: { 200: statusSchema } } }, async () => ({ status: 'UP' }));
  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: statusSchema, 503: statusSchema } } },
    async (request, reply) => {
      const results = await Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), timeoutMs);
            return [name, 'UP'] as const;
          } catch (error) {
            request.log.warn({ check: name, err: error }, 'readiness check failed');
            return [name, 'DOWN'] as const;
          }
        }),
      );
      const up = results.every(([, s]) => s === 'UP');
      return reply.status(up ? 200 : 503).send({ status: up ? 'UP' : 'DOWN', checks: Object.fromEntries(results) });
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
