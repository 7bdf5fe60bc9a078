import { type DatabasePool, sql, z } from '@wiki/db';
import type { EventBus } from './bus.js';
import { errorText, type Logger } from './logger.js';
import { claimPending, markSent, type PruneOptions, pruneEvents } from './outbox.js';
import { coalescedKick } from './relay-kick.js';

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
 * Publishes committed outbox rows to JetStream in seq order, `Nats-Msg-Id` = event id, and marks
 * them sent in the transaction that claimed them. A row whose publish failed stays pending and
 * is retried, so a NATS outage delays events and loses none; a publish that did reach the stream
 * before a failure is dropped there as a duplicate when retried within the 2-minute window, and
 * consumers skip event ids they applied already in any case.
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { pool, bus, logger } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? 200;
  const batchSize = opts.batchSize ?? 100;
  const pruneIntervalMs = opts.pruneIntervalMs ?? 60 * 60 * 1000;

  async function publishBatch(): Promise<{ published: number; full: boolean; error?: unknown }> {
    return pool.transaction(async (tx) => {
      const locked = await tx.oneFirst(sql.type(z.object({ locked: z.boolean() }))`SELECT ${relayLock} AS locked`);
      if (!locked) return { published: 0, full: false };
      const rows = await claimPending(tx, batchSize);
      // All of the batch is sent before any acknowledgement is awaited: one connection keeps
      // them in order on the wire and in the stream, without a round trip per event.
      const outcomes = await Promise.allSettled(
        rows.map((row) => bus.publishSerialized(row.type, row.id, row.envelope)),
      );
      const sent: string[] = [];
      let error: unknown;
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === 'rejected') {
          // Only the rows before the first failure count as sent. Later rows that did reach the
          // stream are sent again with the failed one and dropped there as duplicates; in that rare
          // case the failed event lands after them, as a consumer's retry of a failed event does:
          // handlers must not depend on strict order (see startConsumer).
          error = outcome.reason;
          break;
        }
        sent.push(rows[i].id);
      }
      await markSent(tx, sent);
      return { published: sent.length, full: rows.length === batchSize, error };
    });
  }

  /** Drains the outbox batch by batch; reports whether something went wrong (for back-off). */
  async function drain(): Promise<{ published: number; failed: boolean }> {
    let published = 0;
    while (bus.isConnected()) {
      try {
        const batch = await publishBatch();
        published += batch.published;
        if (batch.error) {
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

  const unsubscribe = bus.onReconnect(kick);
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
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
