import type { Config, ServiceName } from '@wiki/config';
import { markShuttingDown, nameDependency } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp, type GatewayDeps } from './app.js';

export { buildApp, type GatewayDeps } from './app.js';
export { ROUTES, routeFor } from './routing.js';

export interface GatewayOptions {
  logLevel?: string;
  /** Services `/actuator/health` expects (default: config.gatewayServices, from GATEWAY_SERVICES). */
  expectedServices?: ServiceName[];
  trustProxy?: GatewayDeps['trustProxy'];
}

/** How long start-up waits for Redis before going on without it (rate limits then fail open). */
const REDIS_WAIT_MS = 3_000;

/**
 * A Redis client that never queues commands while disconnected: a rate-limit check must fail at
 * once (and let the request through) rather than wait for Redis to come back.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
}

function waitForRedis(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

/** A hop count means: trust that many proxies in front of the gateway. */
function trustProxyOption(value: Config['trustProxy']): GatewayDeps['trustProxy'] {
  if (typeof value === 'number') return (_address: string, hop: number) => hop < value;
  return value;
}

/** The gateway has no database and no NATS: Redis and the app. It does not listen. */
export async function startService(
  config: Config,
  opts: GatewayOptions = {},
): Promise<{ app: FastifyInstance; stop(): Promise<void> }> {
  // A refused socket towards Redis is logged as a Redis outage (libs/http outage.ts).
  nameDependency(config.redisUrl, 'redis');
  const redis = createRedis(config.redisUrl);
  // Errors are reported by the readiness check and the rate limiter; keep them out of stderr.
  redis.on('error', () => undefined);
  await waitForRedis(redis, REDIS_WAIT_MS);

  const app = await buildApp(config, {
    redis,
    logLevel: opts.logLevel,
    expectedServices: opts.expectedServices ?? config.gatewayServices,
    trustProxy: opts.trustProxy ?? trustProxyOption(config.trustProxy),
  });
  if (redis.status !== 'ready') app.log.warn('Redis is not reachable yet: rate limits are off until it is');

  return {
    app,
    async stop() {
      // As every service does (libs/service): readiness off, a pause for load balancers, drain.
      markShuttingDown(app);
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      await app.close();
      redis.disconnect();
    },
  };
}
