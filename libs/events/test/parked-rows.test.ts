import { sql, z } from '@wiki/db';
import { type EventsTestDatabase, eventsFixture, eventually } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEnvelope,
  type EventBus,
  type EventEnvelope,
  type OutboxRelay,
  publishInTx,
  type RunningConsumer,
  startConsumer,
  startOutboxRelay,
} from '../src/index.js';

const events = eventsFixture('parked');
const { logger } = events;

let db: EventsTestDatabase;
let bus: EventBus;
let relay: OutboxRelay;
let consumer: RunningConsumer;

beforeAll(async () => {
  ({ db, bus } = await events.start());
  // Small batches: on a relay that retries the refused row forever, the events after it in later
  // batches never go out (those in its own batch do, being sent along with it).
  relay = startOutboxRelay({ pool: db.pool, bus, logger, pollIntervalMs: 50, batchSize: 2 });
  consumer = await startConsumer({
    bus,
    pool: db.pool,
    name: 'parked',
    types: ['parked.*'],
    logger,
    handle: async (event: EventEnvelope, tx) => {
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('parked', ${event.id})`);
    },
  });
});

afterAll(async () => {
  await consumer?.stop();
  await relay?.stop();
  await events.stop();
});

/**
 * Writes a row straight into the outbox, as a writer that bypasses publishInTx (and its size cap)
 * would: an envelope NATS refuses, bigger than the server's max_payload.
 */
async function insertOversizedRow(bytes: number): Promise<EventEnvelope> {
  const envelope = createEnvelope({ type: 'parked.big', data: { text: 'x'.repeat(bytes) } });
  await db.pool.query(sql.unsafe`
    INSERT INTO event_outbox (id, type, envelope) VALUES (${envelope.id}, ${envelope.type}, ${JSON.stringify(envelope)}::jsonb)
  `);
  return envelope;
}

const outboxState = z.object({
  sent: z.boolean(),
  failed: z.boolean(),
  failure: z.string().nullable(),
});

describe('a row NATS refuses for good', () => {
  it('is set aside, kept with its failure, and the events after it go out', async () => {
    const maxPayload = bus.nc.info?.max_payload ?? 1024 * 1024;
    const big = await insertOversizedRow(maxPayload * 2);
    const after: EventEnvelope[] = [];
    for (let i = 0; i < 3; i++)
      after.push(await db.pool.transaction((tx) => publishInTx(tx, { type: 'parked.after', data: { i } })));
    relay.kick();

    for (const event of after) await eventually(async () => expect(await db.effects('parked', event.id)).toBe(1));

    const row = await db.pool.one(sql.type(outboxState)`
      SELECT sent_at IS NOT NULL AS sent, failed_at IS NOT NULL AS failed, failure FROM event_outbox WHERE id = ${big.id}
    `);
    expect(row).toEqual({ sent: false, failed: true, failure: expect.stringMatching(/max_payload/) });
    expect(await db.effects('parked', big.id)).toBe(0);

    const logged = logger.entries.filter((e) => e.level === 'error' && (e.obj as { id?: string }).id === big.id);
    expect(logged).toHaveLength(1);
    expect(logged[0].obj).toMatchObject({ id: big.id, type: 'parked.big', bytes: expect.any(Number) });
    expect((logged[0].obj as { bytes: number }).bytes).toBeGreaterThan(maxPayload);
    // Never the payload itself in the log.
    expect(JSON.stringify(logged[0].obj).length).toBeLessThan(2000);

    // It stays aside: the relay does not try it again (no second error log after more events).
    const later = await db.pool.transaction((tx) => publishInTx(tx, { type: 'parked.after', data: { i: 3 } }));
    relay.kick();
    await eventually(async () => expect(await db.effects('parked', later.id)).toBe(1));
    expect(logger.entries.filter((e) => e.level === 'error' && (e.obj as { id?: string }).id === big.id)).toHaveLength(
      1,
    );
  });
});
