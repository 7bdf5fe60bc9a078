import { randomUUID } from 'node:crypto';
import { migrate, sql, z } from '@wiki/db';
import {
  countPending,
  createEventsTestDatabase,
  type EventsTestDatabase,
  eventsFixture,
  eventually,
  TEST_NATS_URL,
} from '@wiki/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectEventBus,
  createEnvelope,
  DLQ_HEADERS,
  dlqSubject,
  type EventBus,
  type EventEnvelope,
  eventsMigrations,
  insertEnvelopesSql,
  type OutboxRelay,
  pruneEvents,
  publishInTx,
  type RunningConsumer,
  startConsumer,
  startOutboxRelay,
} from '../src/index.js';

const events = eventsFixture('events_test');
const { logger, suffix, stream, prefix } = events;

let db: EventsTestDatabase;
let bus: EventBus;
let relay: OutboxRelay;
const consumers: RunningConsumer[] = [];

beforeAll(async () => {
  ({ db, bus } = await events.start());
  await bus.ensureStream(); // idempotent
  relay = startOutboxRelay({ pool: db.pool, bus, logger, pollIntervalMs: 50 });
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await relay?.stop();
  await events.stop();
});

/** Commits one event in its own transaction and asks the relay to send it now. */
async function commitEvent(type: string, data: Record<string, unknown> = {}): Promise<EventEnvelope> {
  const envelope = await db.pool.transaction((tx) => publishInTx(tx, { type, data, actorId: null, workspaceId: null }));
  relay.kick();
  return envelope;
}

async function messagesOn(subject: string): Promise<number> {
  const info = await bus.jsm.streams.info(stream, { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

/** Handler calls per event id, and an effects row per applied event. */
function recordingHandler(consumer: string, fail?: (event: EventEnvelope, call: number) => boolean) {
  const calls = new Map<string, number>();
  const order: string[] = [];
  const handle = async (event: EventEnvelope, tx: Parameters<Parameters<typeof startConsumer>[0]['handle']>[1]) => {
    const call = (calls.get(event.id) ?? 0) + 1;
    calls.set(event.id, call);
    await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES (${consumer}, ${event.id})`);
    if (fail?.(event, call)) throw new Error(`handler refused ${event.type} (call ${call})`);
    order.push(event.id);
  };
  return { handle, calls: (id: string) => calls.get(id) ?? 0, order };
}

describe('events through the outbox', () => {
  it('migrates idempotently and creates the stream as specified', async () => {
    expect(await migrate(db.url, [eventsMigrations])).toEqual([]);
    const { config } = await bus.jsm.streams.info(stream);
    expect(config.subjects).toEqual([`${prefix}.>`]);
    expect(config.storage).toBe('file');
    expect(config.max_age).toBe(7 * 24 * 3600 * 1e9);
    expect(config.duplicate_window).toBe(120 * 1e9);
  });

  it('publishes a committed event once, consumes it once, and publishes nothing for a rolled-back one', async () => {
    const h = recordingHandler('one');
    consumers.push(
      await startConsumer({ bus, pool: db.pool, name: 'one', types: ['one.happened'], handle: h.handle, logger }),
    );

    const committed = await commitEvent('one.happened', { n: 1 });
    let rolledBack: EventEnvelope | undefined;
    await expect(
      db.pool.transaction(async (tx) => {
        rolledBack = await publishInTx(tx, { type: 'one.happened', data: { n: 2 } });
        throw new Error('abort the state change');
      }),
    ).rejects.toThrow('abort the state change');
    relay.kick();

    await eventually(async () => expect(await db.effects('one', committed.id)).toBe(1));
    expect(committed).toMatchObject({
      type: 'one.happened',
      version: 1,
      actorId: null,
      workspaceId: null,
      data: { n: 1 },
    });

    // Flushing again sends nothing: the row is marked sent, and the stream holds it once.
    expect(await relay.flush()).toBe(0);
    expect(await countPending(db.pool)).toBe(0);
    expect(await messagesOn(`${prefix}.one.happened`)).toBe(1);

    // A later event is handled after everything before it, so the rolled-back one never came.
    const sentinel = await commitEvent('one.happened', { n: 3 });
    // The handler counts a call before its insert and records the order after it: wait for the order.
    await eventually(() => expect(h.order).toEqual([committed.id, sentinel.id]));
    expect(h.calls(sentinel.id)).toBe(1);
    expect(h.calls(rolledBack!.id)).toBe(0);
    expect(await messagesOn(`${prefix}.one.happened`)).toBe(2);
  });

  it('keeps outbox order with two relays sharing the table, each event published once', async () => {
    const h = recordingHandler('order');
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'order',
        types: ['order.a', 'order.b'],
        handle: h.handle,
        logger,
      }),
    );
    const second = startOutboxRelay({ pool: db.pool, bus, logger, pollIntervalMs: 20, batchSize: 3 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const batch = await db.pool.transaction(async (tx) => [
          await publishInTx(tx, { type: 'order.a', data: { i } }),
          await publishInTx(tx, { type: 'order.b', data: { i } }),
        ]);
        ids.push(...batch.map((e) => e.id));
        second.kick();
      }
      await eventually(() => expect(h.order.length).toBe(ids.length));
      expect(h.order).toEqual(ids);
      expect((await messagesOn(`${prefix}.order.a`)) + (await messagesOn(`${prefix}.order.b`))).toBe(ids.length);
    } finally {
      await second.stop();
    }
  });

  it('writes the events of a statement of its own (insertEnvelopesSql) with it, in the order its query gives', async () => {
    const h = recordingHandler('many');
    consumers.push(
      await startConsumer({ bus, pool: db.pool, name: 'many', types: ['many.happened'], handle: h.handle, logger }),
    );
    const envelopes = [1, 2, 3].map((i) => createEnvelope({ type: 'many.happened', data: { i } }));
    // As a service's prepared statement uses it: its own rows and their events, one statement.
    const statement = (end: string) => `
      WITH input AS MATERIALIZED (
        SELECT e, ord FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, ord)
      ),
      effect AS (INSERT INTO effects (consumer, event_id) SELECT 'statement', (e->>'id')::uuid FROM input),
      events AS (${insertEnvelopesSql('SELECT e FROM input ORDER BY ord DESC')})
      ${end}`;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const pendingBefore = await countPending(db.pool);
      await expect(client.query(statement('SELECT 1 / 0'), [JSON.stringify(envelopes)])).rejects.toThrow(
        'division by zero',
      );
      expect(await countPending(db.pool)).toBe(pendingBefore);

      await client.query(statement('SELECT count(*) FROM input'), [JSON.stringify(envelopes)]);
      relay.kick();
      const reversed = envelopes.map((e) => e.id).reverse();
      await eventually(() => expect(h.order).toEqual(reversed));
      expect(await db.effects('statement', envelopes[0].id)).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('applies an event once when the first attempt fails after its database work', async () => {
    const h = recordingHandler('retry', (_event, call) => call === 1);
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'retry',
        types: ['retry.*'],
        handle: h.handle,
        logger,
        backoffMs: () => 10,
      }),
    );
    const event = await commitEvent('retry.happened');
    await eventually(() => expect(h.calls(event.id)).toBe(2));
    await eventually(async () => expect(await db.effects('retry', event.id)).toBe(1)); // first attempt's row rolled back
    expect(logger.entries.some((e) => e.level === 'warn' && (e.obj as { eventId?: string }).eventId === event.id)).toBe(
      true,
    );
  });

  it('does not run the handler again for an event id it has applied, whatever the message id', async () => {
    const h = recordingHandler('dedupe');
    consumers.push(
      await startConsumer({ bus, pool: db.pool, name: 'dedupe', types: ['dedupe.happened'], handle: h.handle, logger }),
    );
    const event = await commitEvent('dedupe.happened');
    await eventually(() => expect(h.calls(event.id)).toBe(1));

    // Same Nats-Msg-Id inside the duplicate window: the stream drops it.
    expect(await bus.publish(event)).toEqual({ duplicate: true });
    // A fresh Nats-Msg-Id gets it into the stream a second time; the consumer must skip it.
    const again = await bus.js.publish(bus.subject(event.type), JSON.stringify(event), { msgID: randomUUID() });
    expect(again.duplicate).toBe(false);
    expect(await messagesOn(`${prefix}.dedupe.happened`)).toBe(2);

    const sentinel = await commitEvent('dedupe.happened');
    await eventually(() => expect(h.calls(sentinel.id)).toBe(1));
    expect(h.calls(event.id)).toBe(1);
    expect(await db.effects('dedupe', event.id)).toBe(1);
  });

  it('tells `applied` of the events it applied once they are committed, and not of a skipped repeat', async () => {
    const h = recordingHandler('told');
    // What another connection can read at the moment `applied` is called: the effect must be there.
    const seenAtSignal = new Map<string, Promise<number>>();
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'told',
        types: ['told.happened'],
        handle: h.handle,
        logger,
        applied: (applied) => {
          for (const event of applied) seenAtSignal.set(event.id, db.effects('told', event.id));
        },
      }),
    );
    const event = await commitEvent('told.happened');
    await eventually(() => expect(seenAtSignal.has(event.id)).toBe(true));
    expect(await seenAtSignal.get(event.id)).toBe(1);

    seenAtSignal.clear();
    await bus.js.publish(bus.subject(event.type), JSON.stringify(event), { msgID: randomUUID() });
    const sentinel = await commitEvent('told.happened');
    await eventually(() => expect(seenAtSignal.has(sentinel.id)).toBe(true));
    expect([...seenAtSignal.keys()]).toEqual([sentinel.id]);
  });

  it('keeps a handler that outlasts ack_wait from being redelivered while it runs', async () => {
    const h = recordingHandler('slow');
    const slow = async (event: EventEnvelope, tx: Parameters<typeof h.handle>[1]) => {
      if (event.data.slow) await new Promise((r) => setTimeout(r, 2200)); // more than twice ack_wait
      await h.handle(event, tx);
    };
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'slow',
        types: ['slow.happened'],
        handle: slow,
        logger,
        ackWaitMs: 1000,
      }),
    );
    const event = await commitEvent('slow.happened', { slow: true });
    await eventually(async () => expect(await db.effects('slow', event.id)).toBe(1));
    const sentinel = await commitEvent('slow.happened');
    await eventually(() => expect(h.calls(sentinel.id)).toBe(1), { timeoutMs: 20_000 });
    // A redelivery during the first run would have reached the consumer and been skipped as applied.
    const skipped = logger.entries.filter(
      (e) => e.msg === 'event already applied; skipped' && (e.obj as { consumer?: string }).consumer === 'slow',
    );
    expect(skipped).toEqual([]);
    expect(h.calls(event.id)).toBe(1);
  });

  it('dead-letters an event that keeps failing after maxDeliver deliveries and stops redelivering it', async () => {
    const dlq = bus.nc.subscribe(dlqSubject(prefix, 'poison'), { max: 1 });
    await bus.nc.flush();
    const h = recordingHandler('poison', (event) => event.type === 'poison.bad');
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'poison',
        types: ['poison.*'],
        handle: h.handle,
        logger,
        maxDeliver: 3,
        backoffMs: () => 10,
      }),
    );
    const bad = await commitEvent('poison.bad', { oops: true });

    let deadLetter: { data: EventEnvelope; headers: Record<string, string | undefined> } | undefined;
    for await (const m of dlq) {
      deadLetter = {
        data: m.json<EventEnvelope>(),
        headers: Object.fromEntries(Object.values(DLQ_HEADERS).map((k) => [k, m.headers?.get(k)])),
      };
    }
    expect(deadLetter!.data).toEqual(bad);
    expect(deadLetter!.headers).toMatchObject({
      [DLQ_HEADERS.consumer]: 'poison',
      [DLQ_HEADERS.deliveries]: '3',
      [DLQ_HEADERS.subject]: `${prefix}.poison.bad`,
      [DLQ_HEADERS.error]: 'handler refused poison.bad (call 3)',
    });
    expect(h.calls(bad.id)).toBe(3);
    // The log line follows the stream's acknowledgement of the dead letter, which may trail our copy.
    await eventually(() =>
      expect(logger.entries.find((e) => e.level === 'error' && e.msg === 'event dead-lettered')?.obj).toMatchObject({
        consumer: 'poison',
        eventId: bad.id,
      }),
    );

    // Terminated: nothing outstanding on the server, and later events flow past it.
    await eventually(async () => expect((await bus.jsm.consumers.info(stream, 'poison')).num_ack_pending).toBe(0));
    const good = await commitEvent('poison.good');
    await eventually(() => expect(h.calls(good.id)).toBe(1));
    expect(h.calls(bad.id)).toBe(3);
    expect(await db.effects('poison', bad.id)).toBe(0);
    expect(await messagesOn(dlqSubject(prefix, 'poison'))).toBe(1);
  });

  it('prunes sent outbox rows and old consumed records, never pending rows', async () => {
    // Its own database: the running relay would otherwise send the "pending" row under the test.
    const quiet = await createEventsTestDatabase();
    try {
      const sent = await quiet.pool.transaction((tx) => publishInTx(tx, { type: 'prune.sent', data: {} }));
      const pending = await quiet.pool.transaction((tx) => publishInTx(tx, { type: 'prune.pending', data: {} }));
      await quiet.pool.query(sql.unsafe`UPDATE event_outbox SET sent_at = now() WHERE id = ${sent.id}`);
      await quiet.pool.query(sql.unsafe`INSERT INTO event_consumed (consumer, event_id) VALUES ('c', ${sent.id})`);

      expect(await pruneEvents(quiet.pool)).toEqual({ outbox: 0, consumed: 0 }); // nothing old enough yet
      expect(await pruneEvents(quiet.pool, { sentOlderThanMs: 0, consumedOlderThanMs: 0 })).toEqual({
        outbox: 1,
        consumed: 1,
      });
      const left = await quiet.pool.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM event_outbox`);
      expect(left).toEqual([pending.id]);
    } finally {
      await quiet.drop();
    }
  });
});

describe('events applied in batches', () => {
  type Tx = Parameters<Parameters<typeof startConsumer>[0]['handle']>[1];
  const txid = (tx: Tx) => tx.oneFirst(sql.type(z.object({ x: z.string() }))`SELECT txid_current()::text AS x`);

  /** Commits `n` events of `type` in ONE transaction; `data(i)` is each one's data. */
  async function commitBurst(
    type: string,
    n: number,
    data: (i: number) => Record<string, unknown> = (i) => ({ i }),
  ): Promise<EventEnvelope[]> {
    const events = await db.pool.transaction(async (tx) => {
      const out: EventEnvelope[] = [];
      for (let i = 0; i < n; i++) out.push(await publishInTx(tx, { type, data: data(i) }));
      return out;
    });
    relay.kick();
    return events;
  }

  const batchFailures = (consumer: string) =>
    logger.entries.filter(
      (e) =>
        e.msg === 'event batch failed; applying its events one by one' &&
        (e.obj as { consumer?: string }).consumer === consumer,
    );

  it('applies a burst once each, in order, in fewer transactions than events', async () => {
    const committedIn = new Map<string, string[]>(); // event id -> the database transactions its handler ran in
    const order: string[] = [];
    const handle = async (event: EventEnvelope, tx: Tx) => {
      committedIn.set(event.id, [...(committedIn.get(event.id) ?? []), await txid(tx)]);
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('burst', ${event.id})`);
      order.push(event.id);
    };
    consumers.push(
      await startConsumer({ bus, pool: db.pool, name: 'burst', types: ['burst.happened'], handle, logger }),
    );

    const events = await commitBurst('burst.happened', 50);
    await eventually(() => expect(order.length).toBe(events.length));
    expect(order).toEqual(events.map((e) => e.id));
    for (const event of events) expect(committedIn.get(event.id)).toHaveLength(1); // the handler ran once per event
    await eventually(async () => {
      for (const event of events) expect(await db.effects('burst', event.id)).toBe(1);
    });
    const transactions = new Set([...committedIn.values()].flat());
    expect(transactions.size).toBeLessThan(events.length);
    expect(batchFailures('burst')).toEqual([]);
    // All acknowledged: nothing comes back.
    await eventually(async () => expect((await bus.jsm.consumers.info(stream, 'burst')).num_ack_pending).toBe(0));
    expect(await messagesOn(`${prefix}.burst.happened`)).toBe(events.length);
  });

  it('passes handleBatch several events at once, in order, each once', async () => {
    const calls: string[][] = []; // handleBatch calls; a lone event goes to handle, recorded as a call of one
    const handle = async (event: EventEnvelope, tx: Tx) => {
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('batched', ${event.id})`);
      calls.push([event.id]);
    };
    let batchCalls = 0;
    const handleBatch = async (events: EventEnvelope[], tx: Tx) => {
      for (const event of events)
        await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('batched', ${event.id})`);
      batchCalls++;
      calls.push(events.map((e) => e.id));
    };
    // Committed and published before the consumer starts: the consumer finds them all waiting.
    const events = await commitBurst('batched.happened', 30);
    await relay.flush();
    await eventually(async () => expect(await messagesOn(`${prefix}.batched.happened`)).toBe(events.length));
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'batched',
        types: ['batched.happened'],
        handle,
        handleBatch,
        logger,
        backoffMs: () => 10,
      }),
    );

    await eventually(() => expect(calls.flat().length).toBe(events.length));
    expect(calls.flat()).toEqual(events.map((e) => e.id));
    expect(batchCalls).toBeGreaterThan(0);
    expect(Math.max(...calls.map((c) => c.length))).toBeGreaterThan(1);
    await eventually(async () => {
      for (const event of events) expect(await db.effects('batched', event.id)).toBe(1);
    });
  });

  it('dead-letters a poison event in the middle of a burst and applies every other event once', async () => {
    const dlq = bus.nc.subscribe(dlqSubject(prefix, 'burstpoison'), { max: 1 });
    await bus.nc.flush();
    const attempts = new Map<string, number>();
    const handle = async (event: EventEnvelope, tx: Tx) => {
      attempts.set(event.id, (attempts.get(event.id) ?? 0) + 1);
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('burstpoison', ${event.id})`);
      if (event.data.poison) throw new Error('poison refused');
    };
    // Waiting in the stream before the consumer starts, so that the poison comes in a batch with others.
    const events = await commitBurst('burstpoison.happened', 21, (i) => ({ i, poison: i === 10 }));
    const poison = events[10];
    await relay.flush();
    await eventually(async () => expect(await messagesOn(`${prefix}.burstpoison.happened`)).toBe(events.length));
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'burstpoison',
        types: ['burstpoison.*'],
        handle,
        logger,
        maxDeliver: 3,
        backoffMs: () => 10,
      }),
    );

    let deadLetter: { data: EventEnvelope; deliveries?: string; error?: string } | undefined;
    for await (const m of dlq) {
      deadLetter = {
        data: m.json<EventEnvelope>(),
        deliveries: m.headers?.get(DLQ_HEADERS.deliveries),
        error: m.headers?.get(DLQ_HEADERS.error),
      };
    }
    expect(deadLetter).toEqual({ data: poison, deliveries: '3', error: 'poison refused' });
    // The batch with the poison failed and its events went one by one.
    expect(batchFailures('burstpoison').length).toBeGreaterThanOrEqual(1);

    await eventually(async () => expect((await bus.jsm.consumers.info(stream, 'burstpoison')).num_ack_pending).toBe(0));
    for (const event of events) expect(await db.effects('burstpoison', event.id)).toBe(event === poison ? 0 : 1);
    expect(attempts.get(poison.id)).toBeGreaterThanOrEqual(3);
    await eventually(() =>
      expect(
        logger.entries.find(
          (e) => e.msg === 'event dead-lettered' && (e.obj as { consumer?: string }).consumer === 'burstpoison',
        )?.obj,
      ).toMatchObject({
        eventId: poison.id,
      }),
    );

    // Later events flow past it.
    const after = await commitBurst('burstpoison.happened', 3);
    await eventually(async () => {
      for (const event of after) expect(await db.effects('burstpoison', event.id)).toBe(1);
    });
    expect(await db.effects('burstpoison', poison.id)).toBe(0);
    expect(await messagesOn(dlqSubject(prefix, 'burstpoison'))).toBe(1);
  });

  it('gives handleBatch only the events it has not applied, also when one comes twice in a batch', async () => {
    const name = 'freshonly';
    const subject = `${prefix}.freshonly.happened`;
    const seen: string[][] = [];
    const handled: string[] = [];
    const apply = async (event: EventEnvelope, tx: Tx) => {
      handled.push(event.id);
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES (${name}, ${event.id})`);
    };
    const handleBatch = async (events: EventEnvelope[], tx: Tx) => {
      seen.push(events.map((e) => e.id));
      for (const event of events) await apply(event, tx);
    };
    const start = () =>
      startConsumer({ bus, pool: db.pool, name, types: ['freshonly.happened'], handle: apply, handleBatch, logger });

    // Two events applied while the consumer runs.
    const first = await start();
    const applied = await commitBurst('freshonly.happened', 2);
    await eventually(async () => {
      for (const event of applied) expect(await db.effects(name, event.id)).toBe(1);
    });
    await first.stop();

    // While it is stopped: the applied events again under new message ids, and new events, one of them twice.
    const republish = (event: EventEnvelope) => bus.js.publish(subject, JSON.stringify(event), { msgID: randomUUID() });
    const [b, c] = [
      createEnvelope({ type: 'freshonly.happened', data: { n: 'b' } }),
      createEnvelope({ type: 'freshonly.happened', data: { n: 'c' } }),
    ];
    for (const event of [applied[0], b, applied[1], b, c]) expect((await republish(event)).duplicate).toBe(false);
    expect(await messagesOn(subject)).toBe(7);

    seen.length = 0;
    handled.length = 0;
    consumers.push(await start());
    await eventually(async () => {
      expect(await db.effects(name, b.id)).toBe(1);
      expect(await db.effects(name, c.id)).toBe(1);
    });
    await eventually(async () => expect((await bus.jsm.consumers.info(stream, name)).num_ack_pending).toBe(0));
    expect(handled).toEqual([b.id, c.id]); // each new event once, in order; the applied ones never
    // handleBatch saw the new events (at most once each, in order), never the applied ones.
    expect([[b.id, c.id], [b.id], [c.id]]).toContainEqual(seen.flat());
    for (const event of applied) expect(await db.effects(name, event.id)).toBe(1);
  });
});

describe('publishing to the stream', () => {
  it('answers a first publish as new and a repeat of the same event id as a duplicate', async () => {
    const envelope = createEnvelope({ type: 'publish.checked', data: { n: 1 }, actorId: null, workspaceId: null });
    expect(await bus.publishSerialized(envelope.type, envelope.id, JSON.stringify(envelope))).toEqual({
      duplicate: false,
    });
    expect(await bus.publish(envelope)).toEqual({ duplicate: true });
    expect(await messagesOn(`${prefix}.publish.checked`)).toBe(1);
  });

  it('rejects, with a message saying why, a publish that no stream takes', async () => {
    const orphan = await connectEventBus({
      natsUrl: TEST_NATS_URL,
      stream: `NO_STREAM_${suffix}`,
      prefix: `no_stream_${suffix}`,
      name: 'events-test-orphan',
      logger,
    });
    try {
      const envelope = createEnvelope({ type: 'nobody.listens', data: {}, actorId: null, workspaceId: null });
      await expect(orphan.publish(envelope)).rejects.toThrow(/did not answer the publish/);
    } finally {
      await orphan.close();
    }
  });

  it('fails a publish nobody acknowledges in time, and one still pending when the bus closes', async () => {
    const quietPrefix = `quiet_${suffix}`;
    const quiet = await connectEventBus({
      natsUrl: TEST_NATS_URL,
      stream: `QUIET_${suffix}`,
      prefix: quietPrefix,
      name: 'events-test-quiet',
      logger,
      publishTimeoutMs: 300,
    });
    try {
      // A listener that never answers: the server sees interest, so no "no responders" either.
      quiet.nc.subscribe(`${quietPrefix}.>`);
      const envelope = createEnvelope({ type: 'publish.ignored', data: {}, actorId: null, workspaceId: null });
      await expect(quiet.publish(envelope)).rejects.toThrow(/within 300 ms/);
      const pending = expect(quiet.publish({ ...envelope, id: randomUUID() })).rejects.toThrow(/closed/);
      await quiet.close();
      await pending;
    } finally {
      if (!quiet.nc.isClosed()) await quiet.close();
    }
  });
});
