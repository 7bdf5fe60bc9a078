import type { Config, ServiceName } from '@wiki/config';
import { GracefulStop, nameDependency } from '@wiki/http';
import { createLimitsRedis, redisReady } from '@wiki/limits';
import type { FastifyInstance } from 'fastify';
import { buildApp, type GatewayDeps } from './app.js';
import { type GatewaySettings, loadGatewaySettings } from './settings.js';

export { buildApp, type GatewayDeps } from './app.js';
export { ROUTES, routeFor } from './routing.js';

export interface GatewayOptions {
  logLevel?: string;
  /** Services `/actuator/health` expects (default: GATEWAY_SERVICES, settings.ts). */
  expectedServices?: ServiceName[];
  trustProxy?: GatewayDeps['trustProxy'];
}

/** How long start-up waits for Redis before going on without it (rate limits then fail open). */
const REDIS_WAIT_MS = 3_000;

/** A hop count means: trust that many proxies in front of the gateway. */
function trustProxyOption(value: GatewaySettings['trustProxy']): GatewayDeps['trustProxy'] {
  if (typeof value === 'number') return (_address: string, hop: number) => hop < value;
  return value;
}

/**
 * The gateway has no database and no NATS: Redis and the app. It does not listen. It stops as every
 * service does (libs/http GracefulStop): readiness off, a pause for load balancers, drain, Redis.
 */
export async function startService(
  config: Config,
  opts: GatewayOptions = {},
): Promise<{ app: FastifyInstance; stop(): Promise<void> }> {
  const parts = new GracefulStop(config.shutdownDelayMs);
  // A refused socket towards Redis is logged as a Redis outage (libs/http outage.ts).
  nameDependency(config.redisUrl, 'redis');
  const redis = createLimitsRedis(config.redisUrl);
  parts.add('Redis', async () => redis.disconnect());
  try {
    await redisReady(redis, REDIS_WAIT_MS);
    const app = await buildApp(config, {
      redis,
      logLevel: opts.logLevel,
      expectedServices: opts.expectedServices,
      trustProxy: opts.trustProxy ?? trustProxyOption(loadGatewaySettings(config.env).trustProxy),
    });
    parts.serving(app);
    if (redis.status !== 'ready') app.log.warn('Redis is not reachable yet: rate limits are off until it is');
    return { app, stop: () => parts.stop() };
  } catch (error) {
    await parts.stop();
    throw error;
  }
}
