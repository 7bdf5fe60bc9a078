import { type DatabasePool, sql, z } from '@wiki/db';
import type { EventBus } from './bus.js';
import { errorText, type Logger } from './logger.js';
import { type PruneOptions, pruneEvents } from './outbox.js';
import { isPermanentPublishFailure, NoStreamAnsweredError } from './publish-failure.js';
import { coalescedKick } from './relay-kick.js';
import {
  claimPending,
  lastSeenStream,
  markSent,
  type OutboxRow,
  rememberStream,
  resendSince,
  setAside,
} from './relay-rows.js';
import { tracePublish } from './tracing.js';

export interface OutboxRelayOptions {
  pool: DatabasePool;
  bus: EventBus;
  logger: Logger;
  /** How often pending rows are looked for when nobody kicks (default 200 ms). */
  pollIntervalMs?: number;
  /** Rows claimed per transaction (default 100). */
  batchSize?: number;
  /** Under load, kicks start a batch at most this often (default 50 ms); a lone kick acts at once. */
  kickIntervalMs?: number;
  /** How often pruneEvents runs (default hourly); `false` turns pruning off. */
  pruneIntervalMs?: number | false;
  prune?: PruneOptions;
  /**
   * How often the relay compares the stream's creation time with the one it last published to
   * (default 5 s), besides after every reconnect and every unanswered publish.
   */
  streamCheckIntervalMs?: number;
  /** The service whose outbox this is: names its publish spans when tracing is on. */
  service?: string;
}

export interface OutboxRelay {
  /** Looks for pending rows now instead of at the next poll (call after committing an event). */
  kick(): void;
  /** Publishes everything pending now; resolves to how many rows went out. Never throws. */
  flush(): Promise<number>;
  /** Stops polling and waits for a running batch to finish. */
  stop(): Promise<void>;
}

/**
 * One relay publishes at a time per database: the lock keeps events in outbox order across
 * replicas (two replicas publishing neighbouring batches at once could swap them). It is a
 * transaction-level lock, so a crashed relay releases it with its connection.
 */
const relayLock = sql.fragment`pg_try_advisory_xact_lock(hashtext('wiki.events.outbox-relay'))`;
const MAX_RETRY_DELAY_MS = 5000;
/**
 * Rows sent up to this long before the lost stream's creation are sent again too: the stream's
 * `created` is the broker's clock and `sent_at` the database's, which may disagree a little. A copy
 * too many costs nothing (consumers skip event ids they applied).
 */
const CLOCK_MARGIN_MS = 60_000;

/**
 * Publishes committed outbox rows to JetStream in seq order, `Nats-Msg-Id` = event id, and marks
 * them sent in the transaction that claimed them. A row whose publish failed stays pending and
 * is retried, so a NATS outage delays events and loses none; a publish that did reach the stream
 * before a failure is dropped there as a duplicate when retried within the 2-minute window, and
 * consumers skip event ids they applied already in any case.
 *
 * A row NATS refuses for a reason a retry cannot change (see isPermanentPublishFailure) is set
 * aside instead: kept with its failure, logged, counted in the health details, and the rows after
 * it go on. When the stream is gone (unanswered publishes) the relay re-creates it; when the stream
 * it finds is not the one it last published to (another creation time: the broker lost its store,
 * or the stream was removed and re-created), the rows it had sent since the lost stream's creation
 * become pending again and go out, in outbox order, before anything newer.
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { pool, bus, logger } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? 200;
  const batchSize = opts.batchSize ?? 100;
  const pruneIntervalMs = opts.pruneIntervalMs ?? 60 * 60 * 1000;
  const streamCheckIntervalMs = opts.streamCheckIntervalMs ?? 5000;
  const service = opts.service ?? 'events';

  /** Logs and counts a row NATS refused for good; never the payload, which may be large or private. */
  function reportSetAside(row: OutboxRow, error: unknown): void {
    logger.error(
      { id: row.id, type: row.type, bytes: Buffer.byteLength(row.envelope), error: errorText(error) },
      'outbox relay: NATS refused an event for good; it is set aside and the events after it go on',
    );
  }

  async function publishBatch(): Promise<{ published: number; full: boolean; error?: unknown }> {
    return pool.transaction(async (tx) => {
      const locked = await tx.oneFirst(sql.type(z.object({ locked: z.boolean() }))`SELECT ${relayLock} AS locked`);
      if (!locked) return { published: 0, full: false };
      const rows = await claimPending(tx, batchSize);
      // All of the batch is sent before any acknowledgement is awaited: one connection keeps
      // them in order on the wire and in the stream, without a round trip per event.
      const outcomes = await Promise.allSettled(
        rows.map((row) =>
          tracePublish(service, row, bus.subject, () => bus.publishSerialized(row.type, row.id, row.envelope)),
        ),
      );
      const sent: string[] = [];
      let error: unknown;
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === 'fulfilled') {
          sent.push(rows[i].id);
          continue;
        }
        if (isPermanentPublishFailure(outcome.reason)) {
          await setAside(tx, rows[i].id, errorText(outcome.reason));
          reportSetAside(rows[i], outcome.reason);
          continue;
        }
        // Only the rows before the first failure that may mend count as sent. Later rows that did
        // reach the stream are sent again with the failed one and dropped there as duplicates; in
        // that rare case the failed event lands after them, as a consumer's retry of a failed event
        // does: handlers must not depend on strict order (see startConsumer).
        error = outcome.reason;
        break;
      }
      await markSent(tx, sent);
      return { published: sent.length, full: rows.length === batchSize, error };
    });
  }

  /**
   * Makes sure the stream exists, and when it is not the one this database's outbox last went to,
   * makes the rows sent to the lost one pending again. Under the relay lock, so that one replica
   * does it; answers false when another held the lock (the check is then still due).
   */
  async function checkStream(): Promise<boolean> {
    const created = await bus.streamCreated();
    return pool.transaction(async (tx) => {
      const locked = await tx.oneFirst(sql.type(z.object({ locked: z.boolean() }))`SELECT ${relayLock} AS locked`);
      if (!locked) return false;
      const seen = await lastSeenStream(tx, bus.stream);
      if (seen === created) return true;
      if (seen !== null) {
        const lostSince = Date.parse(seen);
        const since = new Date(Number.isNaN(lostSince) ? 0 : lostSince - CLOCK_MARGIN_MS);
        const resent = await resendSince(tx, since);
        logger.warn(
          { stream: bus.stream, previous: seen, created, resent },
          'event stream was re-created; the events sent to the one that is gone are sent again',
        );
      }
      await rememberStream(tx, bus.stream, created);
      return true;
    });
  }

  let streamCheckDue = true;
  let lastStreamCheck = 0;
  async function checkStreamWhenDue(): Promise<void> {
    if (!streamCheckDue && Date.now() - lastStreamCheck < streamCheckIntervalMs) return;
    streamCheckDue = true;
    if (await checkStream()) {
      streamCheckDue = false;
      lastStreamCheck = Date.now();
    }
  }

  /** Drains the outbox batch by batch; reports whether something went wrong (for back-off). */
  async function drain(): Promise<{ published: number; failed: boolean }> {
    let published = 0;
    while (bus.isConnected()) {
      try {
        await checkStreamWhenDue();
        const batch = await publishBatch();
        published += batch.published;
        if (batch.error) {
          // Nobody listens on the subject: the stream may be gone. Look before the next attempt.
          if (batch.error instanceof NoStreamAnsweredError) streamCheckDue = true;
          logger.warn(
            { err: batch.error, error: errorText(batch.error) },
            'outbox relay: publish failed; events stay pending',
          );
          return { published, failed: true };
        }
        if (!batch.full) break;
      } catch (error) {
        logger.warn({ err: error, error: errorText(error) }, 'outbox relay: batch failed; events stay pending');
        return { published, failed: true };
      }
    }
    if (published > 0) logger.debug({ published }, 'outbox relay published events');
    return { published, failed: false };
  }

  // flush() from callers and the poll loop share one queue, so batches never overlap in-process.
  let queue: Promise<unknown> = Promise.resolve();
  function serialized(): Promise<{ published: number; failed: boolean }> {
    const run = queue.then(drain);
    queue = run.catch(() => undefined);
    return run;
  }

  let stopped = false;
  let kicked = false;
  let wake: (() => void) | null = null;
  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
      if (kicked || stopped) done();
    });
  }
  // Coalesced: every committed write kicks, and under load a batch per kick would carry one or
  // two events; this way each carries what piled up in the interval.
  const kick = coalescedKick(() => {
    kicked = true;
    wake?.();
  }, opts.kickIntervalMs ?? 50);

  let lastPrune = 0;
  async function pruneWhenDue() {
    if (pruneIntervalMs === false || Date.now() - lastPrune < pruneIntervalMs) return;
    lastPrune = Date.now();
    try {
      const removed = await pruneEvents(pool, opts.prune);
      if (removed.outbox || removed.consumed) logger.info(removed, 'pruned old event bookkeeping rows');
    } catch (error) {
      logger.warn({ err: error, error: errorText(error) }, 'pruning event tables failed');
    }
  }

  // After a reconnect the broker may be one that lost its store; a stream created by this process
  // (e.g. by a health check) is a new one. Either way the relay looks before it publishes again.
  const lookAtStream = () => {
    streamCheckDue = true;
    kick();
  };
  const unsubscribe = [bus.onReconnect(lookAtStream), bus.onStreamCreated(lookAtStream)];
  const loop = (async () => {
    let failures = 0;
    while (!stopped) {
      kicked = false;
      const { failed } = await serialized();
      failures = failed ? failures + 1 : 0;
      await pruneWhenDue();
      if (stopped) break;
      await sleep(failed ? Math.min(pollIntervalMs * 2 ** failures, MAX_RETRY_DELAY_MS) : pollIntervalMs);
    }
  })();

  return {
    kick,
    async flush() {
      return (await serialized()).published;
    },
    async stop() {
      stopped = true;
      for (const off of unsubscribe) off();
      wake?.();
      await loop;
    },
  };
}
