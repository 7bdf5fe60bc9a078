import { type CommonQueryMethods, type DatabasePool, sql, z } from '@wiki/db';
import { createEnvelope, type EventEnvelope, type NewEvent } from './envelope.js';
import { eventMaxBytes, serializeWithinCap } from './limits.js';
import { noteEventsWritten } from './outbox-pool.js';

/**
 * Writes the event into the outbox inside the caller's transaction: it is published if and only
 * if that transaction commits. Returns the envelope (its id is the NATS message id later).
 * An envelope over the cap (limits.ts) is not written: EventTooLargeError is thrown, which fails
 * the caller's transaction, rather than a row NATS would refuse later.
 */
export async function publishInTx<D, Type extends string = string>(
  tx: CommonQueryMethods,
  event: NewEvent<D, Type>,
): Promise<EventEnvelope<D, Type>> {
  const envelope = createEnvelope(event);
  const json = serializeWithinCap(envelope);
  await tx.query(sql.unsafe`
    INSERT INTO event_outbox (id, type, envelope)
    VALUES (${envelope.id}, ${envelope.type}, ${json}::jsonb)
  `);
  noteEventsWritten(tx);
  return envelope;
}

/**
 * The outbox INSERT of many events as SQL text, for a statement a service writes itself (e.g. a
 * prepared statement on pg that inserts a batch of rows and their events in one round trip): use
 * it as a data-modifying CTE, `WITH …, events AS (${insertEnvelopesSql('SELECT … ORDER BY …')}) …`.
 * `envelopes` is a query whose rows have one column, an envelope as jsonb (see createEnvelope),
 * in the order the events are to be published; they go out if and only if that statement (or the
 * transaction around it) commits. The caller wakes the relay after the commit.
 *
 * The statement cannot throw a typed error of its own, so the caller checks every envelope it
 * puts in with `checkEnvelopeSize` first (before batching: one oversized event then fails its own
 * write, not the writes batched with it).
 */
export function insertEnvelopesSql(envelopes: string): string {
  return `INSERT INTO event_outbox (id, type, envelope)
    SELECT (e.envelope->>'id')::uuid, e.envelope->>'type', e.envelope FROM (${envelopes}) AS e(envelope)`;
}

/**
 * Throws an EventTooLargeError when the envelope is over the cap. `slackBytes`: room kept for what
 * the statement adds to it on the way in (e.g. a timestamp it stamps into the data).
 */
export function checkEnvelopeSize(envelope: EventEnvelope, slackBytes = 0): void {
  serializeWithinCap(envelope, eventMaxBytes() - slackBytes);
}

/**
 * The relay's backlog: rows waiting and the age of the oldest (0 when none). One look at the
 * pending partial index, for the metrics scrape rather than any request.
 */
export async function outboxBacklog(db: CommonQueryMethods): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const row = await db.one(
    sql.type(z.object({ pending: z.number(), oldest_age_seconds: z.number() }))`
      SELECT count(*)::int AS pending,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_age_seconds
      FROM event_outbox WHERE sent_at IS NULL AND failed_at IS NULL`,
  );
  return { pending: row.pending, oldestAgeSeconds: row.oldest_age_seconds };
}

export interface PruneOptions {
  /** Sent outbox rows older than this go (default 1 day). */
  sentOlderThanMs?: number;
  /**
   * Consumed-event records older than this go (default 8 days). Keep it longer than the stream's
   * 7-day max age: a consumer replaying the stream must still find every event it applied.
   */
  consumedOlderThanMs?: number;
}

export const DEFAULT_SENT_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_CONSUMED_RETENTION_MS = 8 * 24 * 60 * 60 * 1000;

/** Deletes sent outbox rows and consumed-event records past their retention. */
export async function pruneEvents(
  db: DatabasePool | CommonQueryMethods,
  options: PruneOptions = {},
): Promise<{ outbox: number; consumed: number }> {
  const sentMs = options.sentOlderThanMs ?? DEFAULT_SENT_RETENTION_MS;
  const consumedMs = options.consumedOlderThanMs ?? DEFAULT_CONSUMED_RETENTION_MS;
  const outbox = await db.query(sql.unsafe`
    DELETE FROM event_outbox WHERE sent_at IS NOT NULL AND sent_at < now() - make_interval(secs => ${sentMs / 1000})
  `);
  const consumed = await db.query(sql.unsafe`
    DELETE FROM event_consumed WHERE consumed_at < now() - make_interval(secs => ${consumedMs / 1000})
  `);
  return { outbox: outbox.rowCount, consumed: consumed.rowCount };
}
