import { Redis } from 'ioredis';

/**
 * A Redis client for counting connections that never queues a command while disconnected: a
 * connection must be let through at once (uncounted) rather than wait for Redis to come back.
 * Connection errors are reported by the calls that fail, not as unhandled 'error' events.
 */
export function createLimitsRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  redis.on('error', () => undefined);
  return redis;
}

/** Waits (at most `ms`) for the first connection, so that the first connections are counted. */
export function redisReady(redis: Redis, ms = 3_000): Promise<void> {
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

/** Lets the client go once the replies it waits for are in (a last release), at once if Redis is away. */
export async function closeLimitsRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => undefined);
  redis.disconnect();
}
