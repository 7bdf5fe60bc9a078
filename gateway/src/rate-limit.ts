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
 * so that a replica learns an address is over its guessing budget without a round trip of its own.
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

/**
 * A WebSocket upgrade without a token: counted like a refused credential (KEYS[1], the address's
 * counter, as HIT_SCRIPT counts) and remembered under a ticket (KEYS[2], holding the address) that
 * lives no longer than the window it was counted in. Returns the count and its milliseconds left.
 */
const UPGRADE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ttl)
return {count, ttl}
`;

/**
 * A refused token arrived on the socket of a ticket (KEYS[2]) of this address (ARGV[2]): the
 * upgrade's count becomes this refusal's, and the ticket is used up. Without such a ticket, the
 * refusal is counted on the address's counter (KEYS[1]) as HIT_SCRIPT counts. Returns the count
 * and its milliseconds left.
 */
const SETTLE_SCRIPT = `
if redis.call('GET', KEYS[2]) == ARGV[2] then
  redis.call('DEL', KEYS[2])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then return {tonumber(redis.call('GET', KEYS[1]) or '0'), ttl} end
end
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/**
 * A valid token arrived on the socket of a ticket (KEYS[1]) of this address (ARGV[1]): the ticket
 * is used up and its count taken back from the address's counter (KEYS[2]). Returns the counter
 * afterwards, or -1 when there was no such ticket (used already, expired, or another address's).
 */
const REDEEM_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1])
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
if count > 0 then count = redis.call('DECR', KEYS[2]) end
return count
`;

/** Addresses known to have spent their guessing budget, at most this many (oldest forgotten first). */
const MAX_SPENT_ADDRESSES = 10_000;

type RedisWithHit = Redis & {
  gatewayRateHit(key: string, windowMs: number): Promise<[number, number, number, number]>;
  gatewayRateHitAndPeek(key: string, failuresKey: string, windowMs: number): Promise<[number, number, number, number]>;
  gatewayCountUpgrade(
    failuresKey: string,
    ticketKey: string,
    windowMs: number,
    address: string,
  ): Promise<[number, number]>;
  gatewayRedeemUpgrade(ticketKey: string, failuresKey: string, address: string): Promise<number>;
  gatewaySettleUpgrade(
    failuresKey: string,
    ticketKey: string,
    windowMs: number,
    address: string,
  ): Promise<[number, number]>;
};

/** Who a request is counted against: the verified local user, or else the client IP. */
export type RateKey = { kind: 'user'; id: string } | { kind: 'ip'; id: string };

export interface RateLimitOptions {
  enabled: boolean;
  userPerMin: number;
  publicPerMin: number;
  /** Refused credentials per client IP per minute; past it, those that fail are answered 429 (auth/guessing.ts). */
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
    if (!(redis as unknown as Partial<RedisWithHit>).gatewayCountUpgrade) {
      redis.defineCommand('gatewayCountUpgrade', { numberOfKeys: 2, lua: UPGRADE_SCRIPT });
      redis.defineCommand('gatewayRedeemUpgrade', { numberOfKeys: 2, lua: REDEEM_SCRIPT });
      redis.defineCommand('gatewaySettleUpgrade', { numberOfKeys: 2, lua: SETTLE_SCRIPT });
    }
  }

  private get commands(): RedisWithHit {
    return this.redis as unknown as RedisWithHit;
  }

  private failuresKey(ip: string): string {
    return `${this.options.keyPrefix}auth-failures:${ip}`;
  }

  private ticketKey(ticket: string): string {
    return `${this.options.keyPrefix}upgrade-ticket:${ticket}`;
  }

  /**
   * The milliseconds left in the window of an address this replica knows to be over its budget
   * of refused credentials, else 0. Memory only: the common case (an address that guesses
   * nothing) costs no Redis round trip; another replica's count reaches this one with the
   * address's next rate check or refusal.
   */
  spentMs(ip: string): number {
    if (!this.options.enabled) return 0;
    const until = this.spentUntil.get(ip);
    if (until === undefined) return 0;
    const leftMs = until - Date.now();
    if (leftMs > 0) return leftMs;
    this.spentUntil.delete(ip);
    return 0;
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

  /**
   * Counts one refused credential (bad JWT, wrong internal key, unknown MCP key) against the IP.
   * Returns the milliseconds left in the window when the IP was over its budget before this one
   * (so this refusal is answered 429), else 0 (answered with its own 401). A refused in-protocol
   * token that comes with the ticket of its socket's upgrade takes over that upgrade's count.
   */
  async countRefusedCredential(ip: string, log: FastifyBaseLogger, upgradeTicket?: string): Promise<number> {
    if (!this.options.enabled) return 0;
    let failures: number;
    let ttlMs: number;
    try {
      const counted: Promise<[number, number, ...number[]]> =
        upgradeTicket === undefined
          ? this.commands.gatewayRateHit(this.failuresKey(ip), WINDOW_MS)
          : this.commands.gatewaySettleUpgrade(this.failuresKey(ip), this.ticketKey(upgradeTicket), WINDOW_MS, ip);
      [failures, ttlMs] = await withTimeout(counted, CHECK_TIMEOUT_MS);
    } catch (error) {
      this.warn(log, error);
      return 0;
    }
    this.rememberFailures(ip, failures, ttlMs);
    return failures > this.options.authFailuresPerMin ? ttlMs : 0;
  }

  /**
   * Counts a WebSocket upgrade that carries no token as a refused credential of the IP, under a
   * ticket (`ticket`) that a valid token on that socket redeems (redeemUpgrade). Returns whether it
   * was counted (not when limits are off or Redis is down) and the milliseconds left in the window
   * when the IP is now over its budget, else 0. Not remembered as spent: the count is provisional.
   */
  async countUpgradeWithoutToken(
    ip: string,
    ticket: string,
    log: FastifyBaseLogger,
  ): Promise<{ counted: boolean; overMs: number }> {
    if (!this.options.enabled) return { counted: false, overMs: 0 };
    try {
      const [failures, ttlMs] = await withTimeout(
        this.commands.gatewayCountUpgrade(this.failuresKey(ip), this.ticketKey(ticket), WINDOW_MS, ip),
        CHECK_TIMEOUT_MS,
      );
      return { counted: true, overMs: failures > this.options.authFailuresPerMin ? ttlMs : 0 };
    } catch (error) {
      this.warn(log, error);
      return { counted: false, overMs: 0 };
    }
  }

  /**
   * A valid token arrived on the socket of `ticket`: its upgrade's count is taken back from the IP
   * (once per ticket, and only for the IP it was counted against).
   */
  async redeemUpgrade(ip: string, ticket: string, log: FastifyBaseLogger): Promise<void> {
    if (!this.options.enabled) return;
    let failures: number;
    try {
      failures = await withTimeout(
        this.commands.gatewayRedeemUpgrade(this.ticketKey(ticket), this.failuresKey(ip), ip),
        CHECK_TIMEOUT_MS,
      );
    } catch (error) {
      this.warn(log, error);
      return;
    }
    if (failures >= 0 && failures < this.options.authFailuresPerMin) this.spentUntil.delete(ip);
  }

  /**
   * Whether the upgrade of `ticket` still waits for a valid token (false once redeemed, when its
   * window ended, or when Redis cannot say: the socket is then given the benefit of the doubt).
   */
  async upgradeAwaitsToken(ticket: string, log: FastifyBaseLogger): Promise<boolean> {
    try {
      return (await withTimeout(this.redis.exists(this.ticketKey(ticket)), CHECK_TIMEOUT_MS)) === 1;
    } catch (error) {
      this.warn(log, error);
      return false;
    }
  }

  /**
   * Counts the request; throws a 429 `RATE_LIMITED` (with Retry-After) when the key is over its
   * limit. With `clientIp`, also learns in the same round trip whether that IP is over its budget
   * of refused credentials (remembered for spentMs; the request itself is not refused for it).
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
    if (clientIp !== undefined) this.rememberFailures(clientIp, failures, failuresTtlMs);
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
