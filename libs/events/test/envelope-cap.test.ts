import { sql, z } from '@wiki/db';
import { countPending, type EventsTestDatabase, eventsFixture } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkEnvelopeSize,
  configureEventMaxBytes,
  createEnvelope,
  DEFAULT_EVENT_MAX_BYTES,
  type EventBus,
  EventTooLargeError,
  eventMaxBytes,
  publishInTx,
} from '../src/index.js';

/** The outbox refuses an envelope over the cap when it is written (issue 11, point 1). */
describe('the envelope cap at outbox write', () => {
  const events = eventsFixture('cap_test');
  let db: EventsTestDatabase;
  let bus: EventBus;

  beforeAll(async () => {
    ({ db, bus } = await events.start());
  });
  afterAll(async () => {
    configureEventMaxBytes(DEFAULT_EVENT_MAX_BYTES);
    await events.stop();
  });

  const outboxRows = () =>
    db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM event_outbox`);

  it('refuses an oversized publishInTx with a typed error and rolls the whole transaction back', async () => {
    // As a service does at connect: the configured cap, under the server's max_payload.
    const maxPayload = bus.nc.info?.max_payload;
    expect(maxPayload).toBeGreaterThan(0);
    const cap = configureEventMaxBytes(DEFAULT_EVENT_MAX_BYTES, maxPayload);
    expect(cap).toBe(eventMaxBytes());
    expect(cap).toBeLessThan(maxPayload as number);

    const before = await outboxRows();
    const attempt = db.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES ('cap-test', gen_random_uuid())`);
      await publishInTx(tx, { type: 'cap.small', data: { n: 1 } });
      // Over the cap by a little, and well under NATS's own limit: refused by the outbox itself.
      await publishInTx(tx, { type: 'cap.large', data: { text: 'x'.repeat(cap + 1) } });
    });
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({ type: 'cap.large', maxBytes: cap, statusCode: 413 });
    expect((error as Error).message).toContain('cap.large');

    // Nothing of that transaction was written: neither the events nor the change they announced.
    expect(await outboxRows()).toBe(before);
    expect(await countPending(db.pool)).toBe(0);
    const effects = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM effects WHERE consumer = 'cap-test'`,
    );
    expect(effects).toBe(0);
  });

  it('still writes an envelope just under the cap', async () => {
    const cap = configureEventMaxBytes(DEFAULT_EVENT_MAX_BYTES, bus.nc.info?.max_payload);
    const overhead = Buffer.byteLength(JSON.stringify(createEnvelope({ type: 'cap.fits', data: { text: '' } })));
    const envelope = await db.pool.transaction((tx) =>
      publishInTx(tx, { type: 'cap.fits', data: { text: 'y'.repeat(cap - overhead - 64) } }),
    );
    const stored = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`
        SELECT octet_length(envelope->>'data')::int AS n FROM event_outbox WHERE id = ${envelope.id}`,
    );
    expect(stored).toBeGreaterThan(cap - overhead - 100);
  });

  it('checks envelopes bound for the batched SQL path (insertEnvelopesSql) the same way', () => {
    configureEventMaxBytes(DEFAULT_EVENT_MAX_BYTES);
    const fits = createEnvelope({ type: 'cap.batch', data: { text: 'z'.repeat(1000) } });
    expect(() => checkEnvelopeSize(fits)).not.toThrow();
    const over = createEnvelope({ type: 'cap.batch', data: { text: 'z'.repeat(DEFAULT_EVENT_MAX_BYTES) } });
    expect(() => checkEnvelopeSize(over)).toThrow(EventTooLargeError);
    // The room kept for what the statement stamps in counts against the cap.
    const edge = createEnvelope({ type: 'cap.batch', data: { text: '' } });
    const size = Buffer.byteLength(JSON.stringify(edge));
    configureEventMaxBytes(size + 10);
    expect(() => checkEnvelopeSize(edge)).not.toThrow();
    expect(() => checkEnvelopeSize(edge, 64)).toThrow(EventTooLargeError);
  });
});
