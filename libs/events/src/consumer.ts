import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JsMsg,
} from '@nats-io/jetstream';
import { headers, nanos } from '@nats-io/transport-node';
import { type DatabasePool, type DatabaseTransactionConnection, sql, z } from '@wiki/db';
import type { EventBus } from './bus.js';
import { checkContract, type EventFor } from './contracts.js';
import { type EventEnvelope, parseEnvelope } from './envelope.js';
import { errorText, type Logger } from './logger.js';
import { dlqSubject, filterSubjectFor, wantsSubject } from './subjects.js';
import { traceConsume } from './tracing.js';
import { isConnectionError } from './transient.js';

/** Where a consumed event sits in the stream, for a handler that orders by it or waits for older ones. */
export interface StreamPosition {
  /** The JetStream stream sequence of the message that carried the event (see AckFloor). */
  streamSeq: number;
}

/**
 * `P`: the event types (or patterns) consumed. When all are of the catalog (contracts.ts), the
 * handlers receive typed events whose data has been parsed against its contract.
 */
export interface ConsumerOptions<P extends string = string> {
  bus: EventBus;
  pool: DatabasePool;
  /** Durable consumer name, `<service>-<purpose>`, e.g. `workspace-document-count`. */
  name: string;
  /** Event types or NATS-style patterns: `['member.added', 'member.removed']`, `['document.*']`. */
  types: readonly P[];
  /** Applies the event; runs in the transaction that records it as consumed. Throw to retry. */
  handle: (event: EventFor<P>, tx: DatabaseTransactionConnection, position: StreamPosition) => Promise<void>;
  /**
   * Applies the events of a transaction (one or several, in order, each new to this consumer):
   * for a handler that can do a batch in fewer statements than one per event. Defaults to
   * `handle` for each. Must have the same effect as `handle` on each event in turn.
   * `positions[i]` is where `events[i]` sits in the stream.
   */
  handleBatch?: (
    events: EventFor<P>[],
    tx: DatabaseTransactionConnection,
    positions: StreamPosition[],
  ) => Promise<void>;
  logger: Logger;
  /** Deliveries before the event is dead-lettered (default 10). */
  maxDeliver?: number;
  /** Delay before redelivery after failed attempt n (1-based); default 500 ms·2^(n-1), at most 30 s. */
  backoffMs?: (attempt: number) => number;
  /** How long the server waits for an ack before redelivering (default 30 s); a running handler extends it. */
  ackWaitMs?: number;
  /** Messages pulled ahead of the ones being handled (default 200). */
  prefetch?: number;
  /** Most events applied in one transaction (default 100). */
  batchSize?: number;
  /**
   * Told of the events a transaction applied once it has committed (never of skipped redeliveries):
   * for a signal that others may now read what the events changed. Must not throw or wait.
   */
  applied?: (events: EventFor<P>[]) => void;
}

export interface RunningConsumer {
  /** Stops pulling, returns unhandled prefetched messages to the server, waits for the running handler. */
  stop(): Promise<void>;
}

export interface ConsumerCounts {
  /** Deliveries the server marked as repeated (a nak, an ack deadline missed, a restart). */
  redeliveries: number;
  /** Events given up on and published to the consumer's dead-letter subject. */
  deadLetters: number;
}

/**
 * Per bus (one per service), per durable consumer, since the bus connected: plain numbers kept here
 * (read by the metrics scrape, libs/service) so that this library needs no metrics client. Keyed by
 * the bus, not the process: services sharing a process (npm start's one process) count apart.
 */
const countsByBus = new WeakMap<EventBus, Map<string, ConsumerCounts>>();

export function consumerCounts(bus: EventBus): ReadonlyMap<string, Readonly<ConsumerCounts>> {
  return countsByBus.get(bus) ?? new Map();
}

export const DLQ_HEADERS = {
  error: 'Wiki-Dlq-Error',
  consumer: 'Wiki-Dlq-Consumer',
  deliveries: 'Wiki-Dlq-Deliveries',
  subject: 'Wiki-Dlq-Subject',
  streamSeq: 'Wiki-Dlq-Stream-Seq',
} as const;

export function defaultBackoffMs(attempt: number): number {
  return Math.min(500 * 2 ** (attempt - 1), 30_000);
}

const CONSUMER_NAME = /^[A-Za-z0-9_-]+$/;
const RESTART_DELAY_MS = 1000;
/**
 * How long one pull request lasts (the client's default is 30 s). The server sends idle heartbeats
 * every half of it; when they stop (e.g. the stream or the consumer was deleted, which the server
 * does not tell a waiting pull), the client looks for its consumer after two missed ones. 5 s finds
 * a lost consumer within seconds, for one small pull request per consumer every 5 s when idle.
 */
const PULL_EXPIRES_MS = 5_000;
/**
 * Idle heartbeats of the pull missed in a row after which it is started over through
 * ensureDurable: the client checks on its consumer after two, and a third means the server still
 * does not serve the pull, whatever the reason.
 */
const HEARTBEATS_MISSED_RESTART = 3;

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

async function ensureDurable(
  bus: EventBus,
  config: Partial<ConsumerConfig> & { durable_name: string },
  logger: Logger,
): Promise<void> {
  const name = config.durable_name;
  let existing: ConsumerConfig | null = null;
  try {
    existing = (await bus.jsm.consumers.info(bus.stream, name)).config;
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.StreamNotFound)) {
      // The broker lost its store, or an operator removed the stream: put it back (the relays
      // re-send what it held) and create the durable consumer in it from the start.
      logger.warn({ consumer: name, stream: bus.stream }, 'event stream is gone; re-creating it');
      await bus.ensureStream();
    } else if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
  }
  if (!existing) {
    await bus.jsm.consumers.add(bus.stream, config);
    logger.info({ consumer: name, filter: config.filter_subject }, 'event consumer created');
    return;
  }
  if (existing.filter_subject !== config.filter_subject) {
    // NATS 2.9 cannot change a durable's filter. Recreate it from the start of the stream: events
    // it had applied are skipped by the consumed-events table, the others are applied now.
    logger.warn(
      { consumer: name, from: existing.filter_subject, to: config.filter_subject },
      'event consumer filter changed; recreating it',
    );
    await bus.jsm.consumers.delete(bus.stream, name);
    await bus.jsm.consumers.add(bus.stream, config);
    return;
  }
  if (existing.ack_wait !== config.ack_wait || existing.max_deliver !== config.max_deliver) {
    await bus.jsm.consumers.update(bus.stream, name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
  }
}

/** A message read and checked, waiting to be applied. */
interface Ready {
  m: JsMsg;
  envelope: EventEnvelope;
}

/** A header value must be one line; keep it short enough for any log or UI that shows it. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 1000);
}

/**
 * Runs a durable pull consumer whose handler applies each event exactly once per consumer: the
 * handler's transaction also inserts (consumer, event id), so a redelivery or a republished event
 * finds the row and is acknowledged without running the handler again. Events are applied in stream
 * order; those that arrive while a transaction runs are applied together in the next one (see
 * processBatch). A failing event is retried with back-off and, after `maxDeliver`
 * deliveries, published to `<prefix>.dlq.<consumer>`, logged at error level and terminated.
 * Failures to reach the database are retried without limit instead (see isConnectionError).
 * Later events go on meanwhile, so a retried event is applied after them: handlers must not
 * depend on strict order between events.
 *
 * An event whose type is of the catalog reaches the handler with its data parsed against the
 * type's contract (contracts.ts); an event whose data does not fit, like an unreadable one, is
 * dead-lettered at once (retrying cannot mend it), the failing fields named in the
 * `Wiki-Dlq-Error` header and the error log.
 */
export async function startConsumer<const P extends string>(opts: ConsumerOptions<P>): Promise<RunningConsumer> {
  const { bus, pool, name, types, logger } = opts;
  // The one place where envelopes become typed events: processBatch has checked them against
  // their contracts (and EventFor<P> is the plain envelope for types outside the catalog).
  const handle = opts.handle as (
    event: EventEnvelope,
    tx: DatabaseTransactionConnection,
    position: StreamPosition,
  ) => Promise<void>;
  const applied = opts.applied as ((events: EventEnvelope[]) => void) | undefined;
  const handleBatch = opts.handleBatch as
    | ((events: EventEnvelope[], tx: DatabaseTransactionConnection, positions: StreamPosition[]) => Promise<void>)
    | undefined;
  if (!CONSUMER_NAME.test(name)) throw new Error(`Invalid consumer name "${name}"`);
  const maxDeliver = opts.maxDeliver ?? 10;
  const backoffMs = opts.backoffMs ?? defaultBackoffMs;
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const batchSize = Math.max(1, opts.batchSize ?? 100);
  const prefetch = Math.max(batchSize, opts.prefetch ?? 200);
  const log = { consumer: name };
  let byName = countsByBus.get(bus);
  if (!byName) {
    byName = new Map();
    countsByBus.set(bus, byName);
  }
  let counts = byName.get(name);
  if (!counts) {
    counts = { redeliveries: 0, deadLetters: 0 };
    byName.set(name, counts);
  }
  const counted = counts;

  const config: Partial<ConsumerConfig> & { durable_name: string } = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubjectFor(bus.prefix, types),
    ack_wait: nanos(ackWaitMs),
    // Unlimited on the server: this code decides when to give up, so the last failure is
    // dead-lettered rather than silently dropped by the server.
    max_deliver: -1,
  };
  await ensureDurable(bus, config, logger);

  async function deadLetter(m: JsMsg, envelope: EventEnvelope | null, error: unknown): Promise<void> {
    const h = headers();
    h.set(DLQ_HEADERS.error, headerValue(errorText(error)));
    h.set(DLQ_HEADERS.consumer, name);
    h.set(DLQ_HEADERS.deliveries, String(m.info.deliveryCount));
    h.set(DLQ_HEADERS.subject, m.subject);
    h.set(DLQ_HEADERS.streamSeq, String(m.seq));
    try {
      await bus.js.publish(dlqSubject(bus.prefix, name), m.data, { headers: h, msgID: `dlq-${name}-${m.seq}` });
    } catch (publishError) {
      // Keep the event rather than lose it: it comes back and is dead-lettered on a later delivery.
      logger.warn(
        { ...log, eventId: envelope?.id, error: errorText(publishError) },
        'dead-lettering failed; will retry',
      );
      m.nak(backoffMs(m.info.deliveryCount));
      return;
    }
    logger.error(
      {
        ...log,
        eventId: envelope?.id,
        type: envelope?.type,
        deliveries: m.info.deliveryCount,
        error: errorText(error),
        dlq: dlqSubject(bus.prefix, name),
      },
      'event dead-lettered',
    );
    m.term();
    counted.deadLetters++;
  }

  /**
   * Applies events in one transaction, in order, each at most once: one commit (and one WAL flush)
   * for the lot instead of one per event. Answers how many were new. Throws if any handler throws;
   * nothing of the batch is then committed.
   */
  async function applyBatch(ready: readonly Ready[]): Promise<number> {
    const done = await pool.transaction(async (tx) => {
      const fresh = new Set(
        await tx.anyFirst(sql.type(z.object({ event_id: z.string() }))`
          INSERT INTO event_consumed (consumer, event_id)
          SELECT ${name}, id FROM unnest(${sql.array(
            ready.map((r) => r.envelope.id),
            'uuid',
          )}) AS id
          ON CONFLICT DO NOTHING
          RETURNING event_id
        `),
      );
      // delete(): an event delivered twice within one batch runs once.
      const todo = ready.filter((r) => fresh.delete(r.envelope.id));
      if (todo.length === 0) return [];
      const positions = todo.map((r) => ({ streamSeq: r.m.seq }));
      if (handleBatch)
        await handleBatch(
          todo.map((r) => r.envelope),
          tx,
          positions,
        );
      else for (const [i, r] of todo.entries()) await handle(r.envelope, tx, positions[i]);
      return todo;
    });
    if (applied && done.length > 0) {
      try {
        applied(done.map((r) => r.envelope));
      } catch (error) {
        logger.warn(
          { ...log, error: errorText(error) },
          'the applied-events callback failed (the events stay applied)',
        );
      }
    }
    return done.length;
  }

  /** Extends the server's ack deadline of messages while they are being handled. */
  function keepAlive(batch: readonly JsMsg[]): () => void {
    const timer = setInterval(
      () => {
        for (const m of batch) m.working();
      },
      Math.max(ackWaitMs / 3, 100),
    );
    return () => clearInterval(timer);
  }

  /** Handles one event alone, with the retry, back-off and dead-letter rules. */
  async function processOne(m: JsMsg, envelope: EventEnvelope): Promise<void> {
    const attempt = m.info.deliveryCount;
    const done = keepAlive([m]);
    try {
      const applied = await traceConsume(name, [envelope], () => applyBatch([{ m, envelope }]));
      if (applied === 0) logger.debug({ ...log, eventId: envelope.id }, 'event already applied; skipped');
      // Not confirmed: the effect is committed, and a redelivery caused by a lost ack is a no-op.
      m.ack();
    } catch (error) {
      if (attempt >= maxDeliver && !isConnectionError(error)) {
        await deadLetter(m, envelope, error);
      } else {
        const delay = backoffMs(attempt);
        logger.warn(
          { ...log, eventId: envelope.id, type: envelope.type, attempt, retryInMs: delay, error: errorText(error) },
          'event handler failed; will retry',
        );
        m.nak(delay);
      }
    } finally {
      done();
    }
  }

  /**
   * Handles the messages that arrived together: one transaction for all of them, and if that
   * fails, one by one, so that only a failing event is retried or dead-lettered.
   */
  async function processBatch(batch: readonly JsMsg[]): Promise<void> {
    const ready: Ready[] = [];
    for (const m of batch) {
      if (!wantsSubject(bus.prefix, types, m.subject)) {
        m.ack(); // shares the filter subject but is not for this consumer
        continue;
      }
      let envelope: EventEnvelope;
      try {
        envelope = parseEnvelope(m.string());
      } catch (error) {
        await deadLetter(m, null, new Error(`unreadable envelope: ${errorText(error)}`)); // retrying cannot help
        continue;
      }
      try {
        ready.push({ m, envelope: checkContract(envelope) });
      } catch (error) {
        await deadLetter(m, envelope, error); // nor here: the same data fails the same way
      }
    }
    if (ready.length === 1) return processOne(ready[0].m, ready[0].envelope);
    if (ready.length === 0) return;
    const done = keepAlive(ready.map((r) => r.m));
    try {
      try {
        await traceConsume(
          name,
          ready.map((r) => r.envelope),
          () => applyBatch(ready),
        );
        for (const { m } of ready) m.ack();
        return;
      } catch (error) {
        logger.debug(
          { ...log, events: ready.length, error: errorText(error) },
          'event batch failed; applying its events one by one',
        );
      }
      for (const { m, envelope } of ready) await processOne(m, envelope);
    } finally {
      done();
    }
  }

  let stopping = false;
  let messages: ConsumerMessages | null = null;
  let wakeRestart: (() => void) | null = null;

  // Messages wait here while the previous batch is in its transaction; the next batch takes
  // whatever has piled up, so batches grow with the load and a lone event goes alone, at once.
  const queue: JsMsg[] = [];
  let worker: Promise<void> | null = null;
  async function drainQueue(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve)); // let already-delivered messages join
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      if (stopping) {
        for (const m of batch) m.nak(); // hand them back now instead of after ack_wait
        continue;
      }
      await processBatch(batch);
    }
  }
  function startWorker(): void {
    worker = drainQueue()
      .catch((error: unknown) =>
        logger.error(
          { ...log, error: errorText(error) },
          'event consumer batch crashed; its events come back after ack_wait',
        ),
      )
      .finally(() => {
        worker = null;
        // A message queued between the drain's last look and this moment must not wait for the next one.
        if (queue.length > 0) startWorker();
      });
  }
  function enqueue(m: JsMsg): Promise<void> | null {
    queue.push(m);
    if (!worker) startWorker();
    return queue.length >= batchSize ? worker : null; // back-pressure: stop pulling until it drains
  }

  /** Ends a pull the server has stopped answering, so that the loop starts it over. */
  async function watchHeartbeats(pulling: ConsumerMessages): Promise<void> {
    for await (const status of pulling.status()) {
      if (status.type === 'heartbeats_missed' && status.count >= HEARTBEATS_MISSED_RESTART) {
        pulling.stop(new Error(`missed ${status.count} heartbeats of the event consumer's pull`));
        return;
      }
    }
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        const consumer = await bus.js.consumers.get(bus.stream, name);
        // Abort instead of the client's default of waiting, forever, for a stream or consumer that
        // went away to come back: the catch below re-creates them.
        const pulling = await consumer.consume({
          max_messages: prefetch,
          expires: PULL_EXPIRES_MS,
          abort_on_missing_resource: true,
        });
        messages = pulling;
        void watchHeartbeats(pulling);
        for await (const m of pulling) {
          if (stopping) {
            m.nak();
            continue;
          }
          if (m.info.redelivered) counted.redeliveries++;
          const full = enqueue(m);
          if (full) await full;
        }
      } catch (error) {
        if (stopping || bus.nc.isClosed()) break;
        logger.error({ ...log, error: errorText(error) }, 'event consumer failed; restarting');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RESTART_DELAY_MS);
          wakeRestart = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeRestart = null;
        if (!stopping)
          await ensureDurable(bus, config, logger).catch((ensureError: unknown) =>
            // The next turn of the loop fails and logs again; this only says why, for debugging.
            logger.debug({ ...log, error: errorText(ensureError) }, 'event consumer could not be re-created yet'),
          );
      } finally {
        while (worker) await worker;
      }
    }
  })();

  return {
    async stop() {
      stopping = true;
      (wakeRestart as (() => void) | null)?.();
      await messages?.close().catch(() => undefined);
      await loop;
    },
  };
}
