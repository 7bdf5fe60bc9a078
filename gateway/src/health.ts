import { SERVICE_NAMES, type ServiceName } from '@wiki/config';
import { registerHealth } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { type Replicas, ready } from './replicas.js';

/** Services answering HTTP behind the gateway (the collab server speaks WebSocket). */
export const HTTP_SERVICES: ServiceName[] = SERVICE_NAMES.filter((s) => s !== 'collab');

const CHECK_TIMEOUT_MS = 2_000;
type Status = 'UP' | 'DOWN';

/** A service is up when one of its replicas is ready: the gateway then has somewhere to send requests. */
async function serviceStatus(origins: string[]): Promise<Status> {
  const answers = await Promise.all(origins.map((origin) => ready(origin, CHECK_TIMEOUT_MS)));
  return answers.includes('ready') ? 'UP' : 'DOWN';
}

async function redisStatus(redis: Redis): Promise<Status> {
  try {
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return 'UP';
  } catch {
    return 'DOWN';
  }
}

/**
 * The gateway's own probes (`/health/live`, `/health/ready`: it serves; Redis is not required
 * since rate limits fail open) and the
 * system-wide `/actuator/health` (also under /api/v1): every expected service's readiness and
 * Redis, `{ status, services: { <name>: UP|DOWN }, redis: UP|DOWN }`, 200 when all are up, else 503.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  replicas: Replicas,
  redis: Redis,
  expected: ServiceName[],
): void {
  registerHealth(app, {});

  const statusSchema = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['UP', 'DOWN'] },
      services: { type: 'object', additionalProperties: { type: 'string' } },
      redis: { type: 'string' },
    },
  };
  const schema = {
    tags: ['health'],
    summary: 'Health of the whole system',
    security: [],
    response: { 200: statusSchema, 503: statusSchema },
  };
  const handler = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    const [services, redisState] = await Promise.all([
      Promise.all(expected.map(async (name) => [name, await serviceStatus(replicas.origins(name))] as const)),
      redisStatus(redis),
    ]);
    const up = redisState === 'UP' && services.every(([, s]) => s === 'UP');
    return reply
      .status(up ? 200 : 503)
      .send({ status: up ? 'UP' : 'DOWN', services: Object.fromEntries(services), redis: redisState });
  };
  app.get('/actuator/health', { schema }, handler);
  app.get('/api/v1/actuator/health', { schema: { ...schema, hide: true } }, handler);
}
