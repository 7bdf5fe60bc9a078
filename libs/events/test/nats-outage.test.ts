import { sql } from '@wiki/db';
import { countPending, type EventsTestDatabase, eventsFixture, eventually, PrivateNats } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventBus,
  type EventEnvelope,
  type OutboxRelay,
  publishInTx,
  type RunningConsumer,
  startConsumer,
  startOutboxRelay,
} from '../src/index.js';

const events = eventsFixture('outage');
const { logger } = events;
let nats: PrivateNats;
let db: EventsTestDatabase;
let bus: EventBus;
let relay: OutboxRelay;
let consumer: RunningConsumer;
const calls = new Map<string, number>();

beforeAll(async () => {
  nats = await PrivateNats.start();
  ({ db, bus } = await events.start({ natsUrl: nats.url, reconnectTimeWaitMs: 100 }));
  relay = startOutboxRelay({ pool: db.pool, bus, logger, pollIntervalMs: 50 });
  consumer = await startConsumer({
    bus,
    pool: db.pool,
    name: 'outage',
    types: ['outage.*'],
    logger,
    backoffMs: () => 50,
    handle: async (event: EventEnvelope, tx) => {
      calls.set(event.id, (calls.get(event.id) ?? 0) + 1);
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('outage', ${event.id})`);
    },
  });
});

afterAll(async () => {
  await consumer?.stop();
  await relay?.stop();
  await events.stop();
  await nats?.dispose();
});

async function commit(type: string): Promise<EventEnvelope> {
  const envelope = await db.pool.transaction((tx) => publishInTx(tx, { type, data: {} }));
  relay.kick();
  return envelope;
}

describe('a NATS outage', () => {
  it('keeps events pending while NATS is down and delivers them once when it is back', async () => {
    const before = await commit('outage.before');
    await eventually(async () => expect(await db.effects('outage', before.id)).toBe(1));

    await nats.kill();
    await eventually(() => expect(bus.isConnected()).toBe(false));
    await expect(bus.health()).rejects.toThrow();

    const during = await commit('outage.during');
    expect(await relay.flush()).toBe(0);
    expect(await countPending(db.pool)).toBe(1);
    expect(await db.effects('outage', during.id)).toBe(0);

    await nats.start(); // same port, same store: the stream and the durable consumer are still there
    await eventually(async () => expect(await db.effects('outage', during.id)).toBe(1));
    expect(await countPending(db.pool)).toBe(0);
    await bus.health();

    // Everything that was in flight has settled once a later event has been handled.
    const after = await commit('outage.after');
    await eventually(() => expect(calls.get(after.id)).toBe(1));
    expect(calls.get(during.id)).toBe(1);
    expect(await db.effects('outage', during.id)).toBe(1);
    expect(await db.effects('outage', before.id)).toBe(1);
  });
});
