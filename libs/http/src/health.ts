import type { FastifyInstance } from 'fastify';

export type HealthCheck = () => Promise<unknown>;

/**
 * `/health/live` answers while the process serves HTTP; `/health/ready` also checks every
 * dependency (database, NATS, ...) and answers 503 naming the ones that are down.
 */
export function registerHealth(app: FastifyInstance, checks: Record<string, HealthCheck>, timeoutMs = 2000): void {
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
