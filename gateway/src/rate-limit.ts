import { AppError } from '@wiki/http';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';

const WINDOW_MS = 60_000;
/** A rate-limit check must never hold a request up for long: past this, the request goes through. */
const CHECK_TIMEOUT_MS = 250;
/** While Redis is down, one warning per this interval, not one per request. */
const WARN_EVERY_MS = 10_000;

/**
 * Fixed one-minute windows: the first hit creates the counter with its expiry; every hit counts.
 * Returns the count and the milliseconds until the window ends.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** The count of a window and the milliseconds until it ends, without counting: {0, 0} when none is open. */
const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {count, ttl}
`;

type RedisWithHit = Redis & {
  gatewayRateHit(key: string, windowMs: number): Promise<[number, number]>;
  gatewayRatePeek(key: string): Promise<[number, number]>;
};

/** Who a request is counted against: the verified local user, or else the client IP. */
export type RateKey = { kind: 'user'; id: string } | { kind: 'ip'; id: string };

export interface RateLimitOptions {
  enabled: boolean;
  userPerMin: number;
  publicPerMin: number;
  /** Refused credentials per client IP per minute; past it, credentials from that IP are not checked. */
  authFailuresPerMin: number;
  /** Prefix of every Redis key, so that environments and test runs sharing a Redis never collide. */
  keyPrefix: string;
}

/**
 * Rate limits in Redis, shared by every gateway replica (ARCHITECTURE 5.14). Keys are only ever a
 * verified user's local id or the client IP, never anything taken from an unverified token. If
 * Redis is unavailable the request is let through: losing rate limiting for a while is better
 * than losing the API.
 */
export class RateLimiter {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: RateLimitOptions,
  ) {
    if (!(redis as unknown as Partial<RedisWithHit>).gatewayRateHit) {
      redis.defineCommand('gatewayRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    }
    if (!(redis as unknown as Partial<RedisWithHit>).gatewayRatePeek) {
      redis.defineCommand('gatewayRatePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    }
  }

  private get commands(): RedisWithHit {
    return this.redis as unknown as RedisWithHit;
  }

  private failuresKey(ip: string): string {
    return `${this.options.keyPrefix}auth-failures:${ip}`;
  }

  /**
   * Throws a 429 `RATE_LIMITED` (with Retry-After) when the client IP has spent its budget of
   * refused credentials in this window. Called BEFORE a credential is checked, whatever it is: if
   * a valid credential still went through, 200 against 429 would tell a guesser which guess was
   * right, and the budget would cost them nothing. Only reads the counter.
   */
  async refuseSpentGuesser(ip: string, reply: FastifyReply, log: FastifyBaseLogger): Promise<void> {
    if (!this.options.enabled) return;
    let count: number;
    let ttlMs: number;
    try {
      [count, ttlMs] = await withTimeout(this.commands.gatewayRatePeek(this.failuresKey(ip)), CHECK_TIMEOUT_MS);
    } catch (error) {
      this.warn(log, error);
      return;
    }
    if (count >= this.options.authFailuresPerMin) {
      reply.header('retry-after', Math.max(1, Math.ceil(ttlMs / 1000)));
      throw new AppError('RATE_LIMITED', 'Too many refused credentials from this address, retry later');
    }
  }

  /** Counts one refused credential (bad or expired JWT, wrong internal key, unknown MCP key) against the IP. */
  async countRefusedCredential(ip: string, log: FastifyBaseLogger): Promise<void> {
    if (!this.options.enabled) return;
    try {
      await withTimeout(this.commands.gatewayRateHit(this.failuresKey(ip), WINDOW_MS), CHECK_TIMEOUT_MS);
    } catch (error) {
      this.warn(log, error);
    }
  }

  /** Counts the request; throws a 429 `RATE_LIMITED` (with Retry-After) when the key is over its limit. */
  async check(key: RateKey, reply: FastifyReply, log: FastifyBaseLogger): Promise<void> {
    if (!this.options.enabled) return;
    const limit = key.kind === 'user' ? this.options.userPerMin : this.options.publicPerMin;
    let count: number;
    let ttlMs: number;
    try {
      [count, ttlMs] = await withTimeout(
        this.commands.gatewayRateHit(`${this.options.keyPrefix}${key.kind}:${key.id}`, WINDOW_MS),
        CHECK_TIMEOUT_MS,
      );
    } catch (error) {
      this.warn(log, error);
      return;
    }
    const resetSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
    reply.header('x-ratelimit-limit', limit);
    reply.header('x-ratelimit-remaining', Math.max(0, limit - count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (count > limit) {
      reply.header('retry-after', resetSeconds);
      throw new AppError('RATE_LIMITED', 'Too many requests, retry later');
    }
  }

  private warn(log: FastifyBaseLogger, error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    log.warn({ err: (error as Error).message }, 'rate limiting skipped: Redis unavailable');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}
