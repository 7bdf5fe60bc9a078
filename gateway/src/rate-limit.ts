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
 * Returns the count and the milliseconds until the window ends; with a second key (an IP's
 * refused-credential counter), also that counter and its milliseconds left, read without counting,
 * so the guessing budget costs an allowed request no round trip of its own.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
if #KEYS < 2 then return {count, ttl, 0, 0} end
local failures = tonumber(redis.call('GET', KEYS[2]) or '0')
local failuresTtl = redis.call('PTTL', KEYS[2])
if failuresTtl < 0 then failuresTtl = 0 end
return {count, ttl, failures, failuresTtl}
`;

/** The count of a window and the milliseconds until it ends, without counting: {0, 0} when none is open. */
const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {count, ttl}
`;

/** Addresses known to have spent their guessing budget, at most this many (oldest forgotten first). */
const MAX_SPENT_ADDRESSES = 10_000;

type RedisWithHit = Redis & {
  gatewayRateHit(key: string, windowMs: number): Promise<[number, number, number, number]>;
  gatewayRateHitAndPeek(key: string, failuresKey: string, windowMs: number): Promise<[number, number, number, number]>;
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
  /**
   * Client IPs whose guessing budget is spent, with when their window ends, as this replica has
   * learnt it (from its own count of a refusal, or from Redis along with a request's rate check).
   * Checking here first keeps the common case (an IP that guesses nothing) free of a Redis round
   * trip of its own; another replica's count reaches this one with the IP's next request.
   */
  private readonly spentUntil = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly options: RateLimitOptions,
  ) {
    if (!(redis as unknown as Partial<RedisWithHit>).gatewayRateHit) {
      redis.defineCommand('gatewayRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      redis.defineCommand('gatewayRateHitAndPeek', { numberOfKeys: 2, lua: HIT_SCRIPT });
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
   * Throws a 429 `RATE_LIMITED` (with Retry-After) when the client IP is known to have spent its
   * budget of refused credentials in this window. Called BEFORE a credential is checked, whatever
   * it is: if a valid credential still went through, 200 against 429 would tell a guesser which
   * guess was right, and the budget would cost them nothing.
   */
  refuseSpentGuesser(ip: string, reply: FastifyReply): void {
    if (!this.options.enabled) return;
    const until = this.spentUntil.get(ip);
    if (until === undefined) return;
    const leftMs = until - Date.now();
    if (leftMs <= 0) {
      this.spentUntil.delete(ip);
      return;
    }
    refuseGuesser(reply, leftMs);
  }

  /**
   * For a caller that no other rate check reads Redis for (the internal key): refuses the IP when
   * Redis says its guessing budget is spent, e.g. by refusals counted on another replica.
   */
  async refuseSpentGuesserShared(ip: string, reply: FastifyReply, log: FastifyBaseLogger): Promise<void> {
    const leftMs = await this.spentGuesserMs(ip, log);
    if (leftMs > 0) refuseGuesser(reply, leftMs);
  }

  /**
   * The milliseconds until the IP may present credentials again, 0 while its guessing budget is
   * not spent: as this replica knows it, else as Redis says (refusals counted on another replica).
   * For callers without a Fastify reply (the collab WebSocket upgrade), and for the internal key.
   */
  async spentGuesserMs(ip: string, log: FastifyBaseLogger): Promise<number> {
    if (!this.options.enabled) return 0;
    const until = this.spentUntil.get(ip);
    if (until !== undefined) {
      if (until > Date.now()) return until - Date.now();
      this.spentUntil.delete(ip);
    }
    let failures: number;
    let ttlMs: number;
    try {
      [failures, ttlMs] = await withTimeout(this.commands.gatewayRatePeek(this.failuresKey(ip)), CHECK_TIMEOUT_MS);
    } catch (error) {
      this.warn(log, error);
      return 0;
    }
    return this.rememberFailures(ip, failures, ttlMs);
  }

  /** Remembers an IP whose refused-credential count has reached the budget; its milliseconds left, else 0. */
  private rememberFailures(ip: string, failures: number, ttlMs: number): number {
    if (failures < this.options.authFailuresPerMin || ttlMs <= 0) return 0;
    if (this.spentUntil.size >= MAX_SPENT_ADDRESSES && !this.spentUntil.has(ip)) {
      const oldest = this.spentUntil.keys().next().value;
      if (oldest !== undefined) this.spentUntil.delete(oldest);
    }
    this.spentUntil.set(ip, Date.now() + ttlMs);
    return ttlMs;
  }

  /** Counts one refused credential (bad or expired JWT, wrong internal key, unknown MCP key) against the IP. */
  async countRefusedCredential(ip: string, log: FastifyBaseLogger): Promise<void> {
    if (!this.options.enabled) return;
    let failures: number;
    let ttlMs: number;
    try {
      [failures, ttlMs] = await withTimeout(
        this.commands.gatewayRateHit(this.failuresKey(ip), WINDOW_MS),
        CHECK_TIMEOUT_MS,
      );
    } catch (error) {
      this.warn(log, error);
      return;
    }
    if (failures >= this.options.authFailuresPerMin) {
      // Only remembered here: this request is answered with its own refusal (401).
      this.spentUntil.set(ip, Date.now() + ttlMs);
    }
  }

  /**
   * Counts the request; throws a 429 `RATE_LIMITED` (with Retry-After) when the key is over its
   * limit, or when `clientIp` is given and Redis says that IP's guessing budget is spent (learnt
   * in the same round trip).
   */
  async check(key: RateKey, reply: FastifyReply, log: FastifyBaseLogger, clientIp?: string): Promise<void> {
    if (!this.options.enabled) return;
    const limit = key.kind === 'user' ? this.options.userPerMin : this.options.publicPerMin;
    const counterKey = `${this.options.keyPrefix}${key.kind}:${key.id}`;
    let count: number;
    let ttlMs: number;
    let failures: number;
    let failuresTtlMs: number;
    try {
      [count, ttlMs, failures, failuresTtlMs] = await withTimeout(
        clientIp === undefined
          ? this.commands.gatewayRateHit(counterKey, WINDOW_MS)
          : this.commands.gatewayRateHitAndPeek(counterKey, this.failuresKey(clientIp), WINDOW_MS),
        CHECK_TIMEOUT_MS,
      );
    } catch (error) {
      this.warn(log, error);
      return;
    }
    if (clientIp !== undefined && this.rememberFailures(clientIp, failures, failuresTtlMs) > 0) {
      refuseGuesser(reply, failuresTtlMs);
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

function refuseGuesser(reply: FastifyReply, leftMs: number): never {
  reply.header('retry-after', Math.max(1, Math.ceil(leftMs / 1000)));
  throw new AppError('RATE_LIMITED', 'Too many refused credentials from this address, retry later');
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
