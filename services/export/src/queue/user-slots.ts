import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Takes a slot when fewer than ARGV[1] are held: a sorted set per user whose members are the
 * running exports, scored by when each lapses (Redis's own clock, the same for every replica).
 * Lapsed slots (an API replica that died holding them) are dropped first.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

export interface UserSlot {
  /** Gives the slot back (idempotent). */
  release(): Promise<void>;
}

/**
 * At most `limit` exports per user at once across every API replica (EXPORT_CONCURRENT_PER_USER):
 * a slot is taken before the job is queued and given back when the file has been sent or the
 * request failed. A slot whose replica died lapses after `holdMs`.
 */
export class UserSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly holdMs: number,
  ) {}

  private keyOf(userId: string): string {
    return `${this.prefix}:export:slots:${userId}`;
  }

  /** A slot of `userId`, or null when they already hold `limit`. */
  async take(userId: string): Promise<UserSlot | null> {
    const key = this.keyOf(userId);
    const id = randomUUID();
    const taken = await this.redis.eval(TAKE, 1, key, this.limit, id, this.holdMs);
    if (taken !== 1) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await this.redis.zrem(key, id);
      },
    };
  }
}
