import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type AtLimit, ConnectionSlots, createLimitsRedis, redisReady } from '@wiki/limits';
import { deleteRedisKeys, eventually, uniqueName } from '@wiki/testing';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

/**
 * The per-owner bound shared by replicas: each "replica" here is a ConnectionSlots with a Redis
 * client and a NATS connection of its own, as two processes would have.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const name = uniqueName('limits');
const keyPrefix = `${name}:limits:`;
const silent = { warn: () => undefined, info: () => undefined };

interface Replica {
  slots: ConnectionSlots;
  redis: Redis;
  nc: NatsConnection;
}
const replicas: Replica[] = [];

async function replica(kind: string, limit: number, atLimit: AtLimit, leaseMs?: number): Promise<Replica> {
  const redis = createLimitsRedis(redisUrl);
  await redisReady(redis);
  const nc = await connect({ servers: natsUrl });
  const slots = new ConnectionSlots({
    kind,
    limit,
    atLimit,
    redis,
    keyPrefix,
    subjectPrefix: `${name}-limits`,
    logger: silent,
    leaseMs,
  });
  slots.attach(nc);
  await nc.flush();
  const made = { slots, redis, nc };
  replicas.push(made);
  return made;
}

async function counted(redis: Redis, kind: string, owner: string): Promise<number> {
  return redis.zcard(`${keyPrefix}${kind}:${owner}`);
}

afterEach(async () => {
  for (const r of replicas.splice(0)) {
    await r.slots.close();
    r.redis.disconnect();
    await r.nc.close().catch(() => undefined);
  }
});
afterAll(() => deleteRedisKeys(redisUrl, `${name}:*`));

describe('connection slots across replicas', () => {
  it('at the limit, a new connection closes the owner’s oldest, on whichever replica holds it', async () => {
    const [a, b] = [await replica('streams', 4, 'close-oldest'), await replica('streams', 4, 'close-oldest')];
    const closed: number[] = [];
    const take = (r: Replica, n: number, owner = 'ada') => r.slots.take(owner, () => closed.push(n));
    // The oldest lives on b; the one that pushes it out opens on a.
    await take(b, 1);
    await take(a, 2);
    await take(b, 3);
    await take(a, 4);
    await take(a, 1, 'bob'); // another owner's count is its own
    expect(closed).toEqual([]);
    expect(await counted(a.redis, 'streams', 'ada')).toBe(4);

    await take(a, 5);
    await eventually(() => expect(closed).toEqual([1]));
    expect(await counted(a.redis, 'streams', 'ada')).toBe(4);
    expect(b.slots.size).toBe(1);

    // And again: the next oldest lives on a, where this one opens: closed at once, no message.
    await take(a, 6);
    expect(closed).toEqual([1, 2]);
    expect(await counted(a.redis, 'streams', 'ada')).toBe(4);
  });

  it('with the refusing policy, the connection past the limit is refused until one ends', async () => {
    const [a, b] = [await replica('sockets', 2, 'refuse'), await replica('sockets', 2, 'refuse')];
    const first = await a.slots.take('ada', () => undefined);
    expect(await b.slots.take('ada', () => undefined)).not.toBeNull();
    expect(await a.slots.take('ada', () => undefined)).toBeNull();
    expect(await b.slots.take('ada', () => undefined)).toBeNull();
    first?.release();
    await eventually(async () => expect(await counted(a.redis, 'sockets', 'ada')).toBe(1));
    expect(await b.slots.take('ada', () => undefined)).not.toBeNull();
    expect(await b.slots.take('ada', () => undefined)).toBeNull();
  });

  it('a replica that dies leaves nothing counted past its lease; a live one keeps its slots', async () => {
    const leaseMs = 600;
    const crashing = await replica('leases', 3, 'refuse', leaseMs);
    const live = await replica('leases', 3, 'refuse', leaseMs);
    await crashing.slots.take('ada', () => undefined);
    await crashing.slots.take('ada', () => undefined);
    await live.slots.take('ada', () => undefined);
    expect(await live.slots.take('ada', () => undefined)).toBeNull();

    // A crash: no renewal, no release, no goodbye (its Redis and NATS connections just drop).
    crashing.redis.disconnect();
    await crashing.nc.close();

    // After the lease, the dead replica's two are gone; the live one, renewed, still counts.
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 3));
    expect(await live.slots.take('ada', () => undefined)).not.toBeNull();
    expect(await live.slots.take('ada', () => undefined)).not.toBeNull();
    expect(await live.slots.take('ada', () => undefined)).toBeNull();
    expect(await counted(live.redis, 'leases', 'ada')).toBe(3);
  });

  it('a replica that stops uncounts what it still holds', async () => {
    const [stopping, staying] = [await replica('stops', 5, 'refuse'), await replica('stops', 5, 'refuse')];
    await stopping.slots.take('ada', () => undefined);
    await stopping.slots.take('ada', () => undefined);
    await staying.slots.take('ada', () => undefined);
    await stopping.slots.close();
    expect(await counted(staying.redis, 'stops', 'ada')).toBe(1);
  });

  it('lets connections through while Redis cannot be reached', async () => {
    const redis = createLimitsRedis('redis://127.0.0.1:9');
    const slots = new ConnectionSlots({
      kind: 'down',
      limit: 1,
      atLimit: 'refuse',
      redis,
      keyPrefix,
      subjectPrefix: `${name}-limits`,
      logger: silent,
    });
    try {
      expect(await slots.take('ada', () => undefined)).not.toBeNull();
      expect(await slots.take('ada', () => undefined)).not.toBeNull();
      expect(slots.size).toBe(2);
    } finally {
      await slots.close();
      redis.disconnect();
    }
  });
});
