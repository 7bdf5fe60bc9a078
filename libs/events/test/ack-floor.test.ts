import { type EventsTestDatabase, eventsFixture, eventually } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AckFloor,
  createEnvelope,
  type EventBus,
  type EventEnvelope,
  type RunningConsumer,
  type StreamPosition,
  startConsumer,
  subjectFor,
} from '../src/index.js';

const events = eventsFixture('ack_floor');
const { logger, prefix } = events;

let db: EventsTestDatabase;
let bus: EventBus;
const consumers: RunningConsumer[] = [];

beforeAll(async () => {
  ({ db, bus } = await events.start());
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await events.stop();
});

/** Publishes straight to the stream and answers the envelope with its stream sequence. */
async function publish(type: string, data: Record<string, unknown> = {}): Promise<[EventEnvelope, number]> {
  const envelope = createEnvelope({ type, data });
  const ack = await bus.js.publish(subjectFor(prefix, type), JSON.stringify(envelope), { msgID: envelope.id });
  return [envelope, ack.seq];
}

/** A gate a handler waits at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('stream positions and the ack floor', () => {
  it('tells each handler its event’s stream sequence, one at a time and in batches', async () => {
    const one = new Map<string, StreamPosition>();
    const batched = new Map<string, StreamPosition>();
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'positions-one',
        types: ['position.one'],
        handle: async (event, _tx, position) => {
          one.set(event.id, position);
        },
        logger,
      }),
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'positions-batch',
        types: ['position.batch'],
        handle: async () => {
          throw new Error('the batch handler is used');
        },
        handleBatch: async (list, _tx, positions) => {
          for (const [i, event] of list.entries()) batched.set(event.id, positions[i]);
        },
        logger,
      }),
    );
    const singles = [await publish('position.one'), await publish('position.one')];
    const many = await Promise.all([1, 2, 3, 4].map(() => publish('position.batch')));
    await eventually(() => expect(one.size + batched.size).toBe(6));
    for (const [e, seq] of singles) expect(one.get(e.id)).toEqual({ streamSeq: seq });
    for (const [e, seq] of many) expect(batched.get(e.id)).toEqual({ streamSeq: seq });
  });

  it('stays below an event until its handler committed, for it and every later event', async () => {
    const held = gate();
    const applied: string[] = [];
    let first: EventEnvelope | undefined;
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'floor-held',
        types: ['floor.held'],
        handle: async (event) => {
          if (event.id === first?.id) await held.opened;
          applied.push(event.id);
        },
        logger,
      }),
    );
    const floor = new AckFloor({ bus, consumer: 'floor-held', logger, maxAgeMs: 0 });
    const [older, olderSeq] = await publish('floor.held');
    first = older;
    const [newer, newerSeq] = await publish('floor.held');
    // The older event's handler is held: the floor passes neither.
    await eventually(async () => {
      const info = await bus.jsm.consumers.info(bus.stream, 'floor-held');
      expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(olderSeq);
    });
    expect(await floor.passed(olderSeq, performance.now())).toBe(false);
    expect(await floor.passed(newerSeq, performance.now())).toBe(false);
    held.open();
    await eventually(() => expect(applied).toEqual([older.id, newer.id]));
    await eventually(async () => expect(await floor.passed(newerSeq, performance.now())).toBe(true));
    expect(await floor.passed(olderSeq, performance.now())).toBe(true);
  });

  it('moves past an event that was dead-lettered', async () => {
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'floor-dead',
        types: ['floor.dead'],
        handle: async () => {
          throw new Error('never applies');
        },
        maxDeliver: 2,
        backoffMs: () => 10,
        logger,
      }),
    );
    const floor = new AckFloor({ bus, consumer: 'floor-dead', logger, maxAgeMs: 0 });
    const [, seq] = await publish('floor.dead');
    await eventually(async () => expect(await floor.passed(seq, performance.now())).toBe(true));
  });

  it('waits while the consumer does not exist, saying so once; passes a sequence the stream never had', async () => {
    const floor = new AckFloor({ bus, consumer: 'floor-missing', logger, maxAgeMs: 0 });
    const warnings = () => logger.entries.filter((e) => e.msg === 'event consumer ack floor unreadable; waiting');
    const before = warnings().length;
    const [, seq] = await publish('floor.missing');
    expect(await floor.passed(seq, performance.now())).toBe(false);
    expect(await floor.passed(seq, performance.now())).toBe(false);
    expect(warnings().length - before).toBe(1);

    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name: 'floor-missing',
        types: ['floor.missing'],
        handle: async () => {},
        logger,
      }),
    );
    await eventually(async () => expect(await floor.passed(seq, performance.now())).toBe(true));
    expect(logger.entries.some((e) => e.msg === 'event consumer ack floor readable again')).toBe(true);
    // Beyond the stream's end on a reading made after the row was seen: the stream started over.
    const last = (await bus.jsm.streams.info(bus.stream)).state.last_seq;
    expect(await floor.passed(last + 1000, performance.now())).toBe(true);
  });

  it('shares one reading between callers while it is fresh, and reads again for a newer sighting', async () => {
    let lookups = 0;
    const counting = {
      stream: bus.stream,
      jsm: {
        consumers: {
          info: (stream: string, name: string) => {
            lookups++;
            return bus.jsm.consumers.info(stream, name);
          },
        },
        streams: { info: (stream: string) => bus.jsm.streams.info(stream) },
      },
    } as unknown as EventBus;
    const floor = new AckFloor({ bus: counting, consumer: 'floor-held', logger, maxAgeMs: 60_000 });
    const last = (await bus.jsm.streams.info(bus.stream)).state.last_seq;
    await Promise.all([1, 2, 3].map(() => floor.passed(1, performance.now())));
    expect(lookups).toBe(1);
    // A sequence past the stream's end as last read: looked up again, once, for sightings after it.
    const seen = performance.now();
    await Promise.all([1, 2].map(() => floor.passed(last + 1000, seen)));
    expect(lookups).toBe(2);
  });
});
