import { sql } from '@wiki/db';
import { type EventsTestDatabase, eventData, eventsFixture, eventually } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEnvelope,
  DLQ_HEADERS,
  dlqSubject,
  type EventBus,
  type EventEnvelope,
  newEvent,
  type RunningConsumer,
  startConsumer,
  type TypedEvent,
} from '../src/index.js';

/**
 * Consumers receive data parsed against the contracts (src/contracts.ts): an event whose data does
 * not fit its type's contract goes to the dead-letter subject at once, and the next one is handled.
 */
const events = eventsFixture('contracts_test');
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

describe('typed consumers', () => {
  it('dead-letters a payload that breaks its contract at once, and handles the next good event', async () => {
    const name = 'members';
    const dlq = bus.nc.subscribe(dlqSubject(prefix, name), { max: 1 });
    await bus.nc.flush();
    const handled: Array<TypedEvent<'member.added' | 'member.role_changed' | 'member.removed'>> = [];
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name,
        types: ['member.*'],
        logger,
        handle: async (event, tx) => {
          handled.push(event);
          await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES (${name}, ${event.id})`);
        },
        backoffMs: () => 10,
      }),
    );

    // Put into the stream by hand, as a faulty producer would: a role nobody knows, no userId.
    const { userId: _, ...noUser } = eventData('member.added');
    const bad = createEnvelope({
      type: 'member.added',
      actorId: null,
      workspaceId: noUser.workspaceId,
      data: { ...noUser, role: 'EMPEROR' },
    });
    await bus.js.publish(`${prefix}.member.added`, JSON.stringify(bad), { msgID: bad.id });
    const valid = eventData('member.removed');
    const withMore = { ...valid, note: 'not in the contract' };
    const good = createEnvelope(newEvent('member.removed', { actorId: null, workspaceId: null, data: withMore }));
    await bus.publish(good);

    let deadLetter: { envelope: EventEnvelope; headers: Record<string, string | undefined> } | undefined;
    for await (const m of dlq) {
      deadLetter = {
        envelope: m.json<EventEnvelope>(),
        headers: Object.fromEntries(Object.values(DLQ_HEADERS).map((k) => [k, m.headers?.get(k)])),
      };
    }
    expect(deadLetter?.envelope).toEqual(bad);
    expect(deadLetter?.headers).toMatchObject({
      [DLQ_HEADERS.consumer]: name,
      [DLQ_HEADERS.deliveries]: '1', // at once: no retries for data that cannot change
      [DLQ_HEADERS.subject]: `${prefix}.member.added`,
    });
    expect(deadLetter?.headers[DLQ_HEADERS.error]).toMatch(
      /^data breaks the member\.added contract: userId: Required; role: Invalid enum value/,
    );

    // The next event is handled, with its data as the contract has it (the unknown field dropped).
    await eventually(async () => expect(await db.effects(name, good.id)).toBe(1));
    expect(handled.map((e) => [e.id, e.data])).toEqual([[good.id, valid]]);
    expect(await db.effects(name, bad.id)).toBe(0);
    await eventually(() =>
      expect(logger.entries.find((e) => e.level === 'error' && e.msg === 'event dead-lettered')?.obj).toMatchObject({
        consumer: name,
        eventId: bad.id,
        type: 'member.added',
        error: expect.stringContaining('userId: Required'),
      }),
    );
  });

  it('passes the data of types outside the catalog through unchecked', async () => {
    const name = 'uncatalogued';
    const seen: EventEnvelope[] = [];
    consumers.push(
      await startConsumer({
        bus,
        pool: db.pool,
        name,
        types: ['custom.happened'],
        logger,
        handle: async (event) => void seen.push(event),
      }),
    );
    const event = createEnvelope({ type: 'custom.happened', data: { anything: [1, 'two'] } });
    await bus.publish(event);
    await eventually(() => expect(seen.map((e) => e.data)).toEqual([{ anything: [1, 'two'] }]));
  });
});
