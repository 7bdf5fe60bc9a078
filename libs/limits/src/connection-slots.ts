import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';

/** What happens to a connection past the limit: the owner's oldest one is closed, or the new one refused. */
export type AtLimit = 'close-oldest' | 'refuse';

export interface SlotsLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface ConnectionSlotsOptions {
  /** What is bounded (a token of Redis keys, NATS subjects and log lines), e.g. `notification-streams`. */
  kind: string;
  /** Most connections one owner may hold across every replica. */
  limit: number;
  atLimit: AtLimit;
  redis: Redis;
  /** Prefix of the Redis keys, so that environments sharing a Redis never meet (`<DB_PREFIX>:limits:`). */
  keyPrefix: string;
  /** Base of the core NATS subject on which replicas ask each other to close a connection. */
  subjectPrefix: string;
  logger: SlotsLogger;
  /** How long a connection stays counted without its replica renewing it (tests shorten it). */
  leaseMs?: number;
}

/** One counted connection. `release` when it ends (more than once is harmless). */
export interface Slot {
  readonly owner: string;
  readonly member: string;
  release(): void;
}

/**
 * A replica renews its connections every third of this; a replica that died stops renewing, and
 * its connections stop counting at most this long after.
 */
export const DEFAULT_LEASE_MS = 30_000;
/** While Redis is away, one warning per this interval, not one per connection. */
const WARN_EVERY_MS = 10_000;

/**
 * Drops what no replica renewed in time, then takes a slot for a new connection, unless the
 * owner is at the limit and the policy refuses (answer {0}). Otherwise answers {1, member,
 * evicted...}: the members past the limit, oldest first, already removed. A member starts with
 * Redis' own clock in microseconds, so that members sort by opening time whichever replica's
 * clock is off; the score is when its lease ends.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local nowMs = math.floor(nowUs / 1000)
local lease = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
if ARGV[4] == '1' and #members >= limit then return {0} end
local member = string.format('%016.0f', nowUs) .. ':' .. ARGV[3]
redis.call('ZADD', KEYS[1], nowMs + lease, member)
redis.call('PEXPIRE', KEYS[1], lease)
local result = {1, member}
local over = #members + 1 - limit
if over > 0 then
  table.sort(members)
  for i = 1, over do
    redis.call('ZREM', KEYS[1], members[i])
    result[#result + 1] = members[i]
  end
end
return result
`;

/**
 * Renews the leases of one owner's members held by this replica. A member that is missing (Redis
 * lost it, or it was taken while Redis was away) is added again: the set converges on what the
 * replicas really hold, and the owner's next connection trims it to the limit.
 */
const RENEW_SCRIPT = `
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #ARGV - 1
`;

type RedisWithScripts = Redis & {
  connectionSlotTake(key: string, leaseMs: number, limit: number, id: string, refuse: string): Promise<string[] | [0]>;
  connectionSlotRenew(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

interface Held {
  owner: string;
  evict: () => void;
}

/**
 * Bounds the long-lived connections (streams, sockets, sessions) each owner holds across every
 * replica of a service. The count lives in Redis, one sorted set per owner, written only by
 * atomic scripts, so that two replicas taking a slot at once cannot both slip under the limit.
 * Every entry is a lease that its replica renews while the connection lasts: a replica that
 * crashes leaves nothing counted for longer than the lease. Past the limit either the new
 * connection is refused, or the owner's oldest is closed, wherever it lives: the replica holding
 * it hears so on a core NATS subject. If Redis cannot be reached the connection is let through
 * (and counted once Redis is back): losing the bound for a while is better than losing the service.
 */
export class ConnectionSlots {
  private readonly held = new Map<string, Held>();
  private readonly leaseMs: number;
  private readonly renewal: NodeJS.Timeout;
  private nc: NatsConnection | undefined;
  private subscription: Subscription | undefined;
  private lastWarning = 0;
  /** Connections refused at the limit by this replica (policy refuse), since it started. */
  refused = 0;
  /** This replica's connections closed because a newer one of their owner came (policy close-oldest). */
  pushedOut = 0;

  constructor(private readonly options: ConnectionSlotsOptions) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const redis = options.redis as Partial<RedisWithScripts> & Redis;
    if (!redis.connectionSlotTake) {
      redis.defineCommand('connectionSlotTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
      redis.defineCommand('connectionSlotRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    }
    this.renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
  }

  /** Connections this replica holds a slot for. */
  get size(): number {
    return this.held.size;
  }

  private get redis(): RedisWithScripts {
    return this.options.redis as RedisWithScripts;
  }

  private get subject(): string {
    return `${this.options.subjectPrefix}.${this.options.kind}`;
  }

  private keyOf(owner: string): string {
    return `${this.options.keyPrefix}${this.options.kind}:${owner}`;
  }

  /** Listens for closes other replicas ask of this one (their new connection pushed one of ours out). */
  attach(nc: NatsConnection): void {
    this.subscription?.unsubscribe();
    this.nc = nc;
    this.subscription = nc.subscribe(this.subject, {
      callback: (error, msg) => {
        if (error) return;
        let members: unknown;
        try {
          members = msg.json();
        } catch {
          return;
        }
        if (Array.isArray(members)) for (const member of members) this.evictHere(String(member));
      },
    });
  }

  /**
   * Counts a new connection of `owner`. Answers its slot, or null when the owner is at the limit
   * and the policy refuses. `evict` closes this connection when a newer one of the same owner
   * pushes it out (policy close-oldest); it is called at most once, and the slot is already
   * uncounted by then (releasing it again is harmless).
   */
  async take(owner: string, evict: () => void): Promise<Slot | null> {
    const { limit, atLimit } = this.options;
    const id = randomUUID();
    let member: string;
    let evicted: string[] = [];
    try {
      const answer = await this.redis.connectionSlotTake(
        this.keyOf(owner),
        this.leaseMs,
        limit,
        id,
        atLimit === 'refuse' ? '1' : '0',
      );
      if (Number(answer[0]) === 0) {
        this.refused += 1;
        return null;
      }
      [, member, ...evicted] = answer as string[];
    } catch (error) {
      this.warn(error);
      // Counted from the next renewal on, when Redis is back.
      member = `${String(Date.now() * 1000).padStart(16, '0')}:${id}`;
    }
    this.held.set(member, { owner, evict });
    this.evictEverywhere(evicted);
    return { owner, member, release: () => this.release(member) };
  }

  private release(member: string): void {
    const held = this.held.get(member);
    if (!held) return;
    this.held.delete(member);
    this.redis.zrem(this.keyOf(held.owner), member).catch((error: unknown) => this.warn(error));
  }

  /** Closes the members pushed out: ours at once, the others through the replicas that hold them. */
  private evictEverywhere(members: string[]): void {
    const elsewhere = members.filter((member) => !this.evictHere(member));
    if (elsewhere.length === 0) return;
    this.options.logger.info(
      { kind: this.options.kind, count: elsewhere.length },
      'connection limit: closing the oldest connections on other replicas',
    );
    if (this.nc && !this.nc.isClosed()) this.nc.publish(this.subject, JSON.stringify(elsewhere));
  }

  /** Whether this replica held the member (and has now closed it). */
  private evictHere(member: string): boolean {
    const held = this.held.get(member);
    if (!held) return false;
    this.held.delete(member);
    this.pushedOut += 1;
    this.options.logger.info(
      { kind: this.options.kind, owner: held.owner },
      'connection limit reached: the oldest connection is closed',
    );
    try {
      held.evict();
    } catch (error) {
      this.options.logger.warn({ err: error, kind: this.options.kind }, 'closing an evicted connection failed');
    }
    return true;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const byOwner = new Map<string, string[]>();
    for (const [member, { owner }] of this.held) {
      const members = byOwner.get(owner);
      if (members) members.push(member);
      else byOwner.set(owner, [member]);
    }
    const pipeline = this.redis.pipeline() as unknown as {
      connectionSlotRenew(key: string, leaseMs: number, ...members: string[]): void;
      exec(): Promise<Array<[Error | null, unknown]> | null>;
    };
    for (const [owner, members] of byOwner) pipeline.connectionSlotRenew(this.keyOf(owner), this.leaseMs, ...members);
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error)?.[0];
      if (failed) this.warn(failed);
    } catch (error) {
      this.warn(error);
    }
  }

  /**
   * Stops renewing and uncounts whatever this replica still holds (shutdown, once its
   * connections are closed), so that clients reconnecting elsewhere do not meet them.
   */
  async close(): Promise<void> {
    clearInterval(this.renewal);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.nc = undefined;
    if (this.held.size === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [member, { owner }] of this.held) pipeline.zrem(this.keyOf(owner), member);
    this.held.clear();
    await pipeline.exec().catch((error: unknown) => this.warn(error));
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.options.logger.warn(
      { kind: this.options.kind, err: (error as Error)?.message ?? String(error) },
      'connection limit: Redis is unavailable; connections are let through uncounted',
    );
  }
}
