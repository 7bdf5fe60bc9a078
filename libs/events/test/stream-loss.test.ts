import { sql, z } from '@wiki/db';
import { type EventsTestDatabase, eventsFixture, eventually, PrivateNats } from '@wiki/testing';
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

const TOTAL = 400;
const PER_TRANSACTION = 10;

const events = eventsFixture('loss');
const { logger } = events;
let nats: PrivateNats;
let db: EventsTestDatabase;
let bus: EventBus;
let relay: OutboxRelay;
let consumer: RunningConsumer;

/**
 * Holds the consumer's handler while closed: events the stream has acknowledged pile up unconsumed
 * in the stream, so that losing the stream really loses some.
 */
let openGate: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
function closeGate(): void {
  gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
}

beforeAll(async () => {
  nats = await PrivateNats.start();
  ({ db, bus } = await events.start({ natsUrl: nats.url, reconnectTimeWaitMs: 100, publishTimeoutMs: 1000 }));
  relay = startOutboxRelay({ pool: db.pool, bus, logger, pollIntervalMs: 50 });
  consumer = await startConsumer({
    bus,
    pool: db.pool,
    name: 'loss',
    types: ['loss.*'],
    logger,
    backoffMs: () => 50,
    batchSize: 10,
    prefetch: 10,
    handle: async (event: EventEnvelope, tx) => {
      await gate;
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('loss', ${event.id})`);
    },
  });
});

afterAll(async () => {
  openGate();
  await consumer?.stop();
  await relay?.stop();
  await events.stop();
  await nats?.dispose();
});

/** Commits `count` events, PER_TRANSACTION a transaction, a short pause between transactions. */
async function writeLoad(from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i += PER_TRANSACTION) {
    await db.pool.transaction(async (tx) => {
      for (let j = i; j < Math.min(i + PER_TRANSACTION, from + count); j++)
        await publishInTx(tx, { type: 'loss.written', data: { n: j } });
    });
    written += Math.min(PER_TRANSACTION, from + count - i);
    relay.kick();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Events committed so far by writeLoad. */
let written = 0;
const totalWritten = () => written;

const counts = z.object({ pending: z.number(), applied: z.number(), distinct: z.number() });

async function state() {
  return db.pool.one(sql.type(counts)`
    SELECT (SELECT count(*)::int FROM event_outbox WHERE sent_at IS NULL) AS pending,
           (SELECT count(*)::int FROM effects WHERE consumer = 'loss') AS applied,
           (SELECT count(DISTINCT event_id)::int FROM effects WHERE consumer = 'loss') AS distinct
  `);
}

describe('NATS coming back without its stream and consumers', () => {
  it('re-creates them and delivers every event exactly once, nothing restarted', async () => {
    closeGate();
    // Half of the load reaches the stream (acknowledged, outbox rows marked sent) but is not consumed.
    await writeLoad(0, TOTAL / 2);
    await eventually(async () => expect((await state()).pending).toBe(0));
    const created = (await bus.jsm.streams.info(bus.stream)).created;

    // The broker dies under the load and comes back with an empty store.
    const secondHalf = writeLoad(TOTAL / 2, TOTAL / 2);
    await nats.kill();
    nats.wipeStore();
    await nats.start();
    openGate();
    await secondHalf;

    await eventually(
      async () => {
        const now = await state();
        expect(now.distinct).toBe(totalWritten());
        expect(now.pending).toBe(0);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(totalWritten()).toBe(TOTAL);
    // Exactly once: no event was applied twice, though the outbox sent some of them again.
    expect((await state()).applied).toBe(TOTAL);
    // The stream now is another one than before the wipe (the test really lost the store).
    expect((await bus.jsm.streams.info(bus.stream)).created).not.toBe(created);
  }, 90_000);

  it('does the same when an operator deletes the stream while NATS runs', async () => {
    closeGate();
    await writeLoad(totalWritten(), 100);
    await eventually(async () => expect((await state()).pending).toBe(0));

    await bus.jsm.streams.delete(bus.stream);
    openGate();
    await writeLoad(totalWritten(), 100);

    await eventually(
      async () => {
        const now = await state();
        expect(now.distinct).toBe(totalWritten());
        expect(now.pending).toBe(0);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await state()).applied).toBe(totalWritten());
  }, 90_000);
});
