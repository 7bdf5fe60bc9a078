import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { headers, nanos } from '@nats-io/transport-node';
import { type DatabasePool, type DatabaseTransactionConnection, sql, z } from '@wiki/db';
import type { EventBus } from './bus.js';
import { type EventEnvelope, parseEnvelope } from './envelope.js';
import { errorText, type Logger } from './logger.js';
import { dlqSubject, filterSubjectFor, wantsSubject } from './subjects.js';
import { isConnectionError } from './transient.js';

export interface ConsumerOptions {
  bus: EventBus;
  pool: DatabasePool;
  /** Durable consumer name, `<service>-<purpose>`, e.g. `workspace-document-count`. */
  name: string;
  /** Event types or NATS-style patterns: `['member.added', 'member.removed']`, `['document.*']`. */
  types: string[];
  /** Applies the event; runs in the transaction that records it as consumed. Throw to retry. */
  handle: (event: EventEnvelope, tx: DatabaseTransactionConnection) => Promise<void>;
  logger: Logger;
  /** Deliveries before the event is dead-lettered (default 10). */
  maxDeliver?: number;
  /** Delay before redelivery after failed attempt n (1-based); default 500 ms·2^(n-1), at most 30 s. */
  backoffMs?: (attempt: number) => number;
  /** How long the server waits for an ack before redelivering (default 30 s); a running handler extends it. */
  ackWaitMs?: number;
  /** Messages pulled ahead of the one being handled (default 10). */
  prefetch?: number;
}

export interface RunningConsumer {
  /** Stops pulling, returns unhandled prefetched messages to the server, waits for the running handler. */
  stop(): Promise<void>;
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

async function ensureDurable(bus: EventBus, config: Partial<ConsumerConfig> & { durable_name: string }, logger: Logger): Promise<void> {
  const name = config.durable_name;
  let existing: ConsumerConfig | null = null;
  try {
    existing = (await bus.jsm.consumers.info(bus.stream, name)).config;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound)) throw error;
  }
  if (!existing) {
    await bus.jsm.consumers.add(bus.stream, config);
    logger.info({ consumer: name, filter: config.filter_subject }, 'event consumer created');
    return;
  }
  if (existing.filter_subject !== config.filter_subject) {
    // NATS 2.9 cannot change a durable's filter. Recreate it from the start of the stream: events
    // it had applied are skipped by the consumed-events table, the others are applied now.
    logger.warn({ consumer: name, from: existing.filter_subject, to: config.filter_subject }, 'event consumer filter changed; recreating it');
    await bus.jsm.consumers.delete(bus.stream, name);
    await bus.jsm.consumers.add(bus.stream, config);
    return;
  }
  if (existing.ack_wait !== config.ack_wait || existing.max_deliver !== config.max_deliver) {
    await bus.jsm.consumers.update(bus.stream, name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
  }
}

/** A header value must be one line; keep it short enough for any log or UI that shows it. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 1000);
}

/**
 * Runs a durable pull consumer whose handler applies each event exactly once per consumer: the
 * handler's transaction also inserts (consumer, event id), so a redelivery or a republished event
 * finds the row and is acknowledged without running the handler again. Messages are handled one at
 * a time in stream order. A failing event is retried with back-off and, after `maxDeliver`
 * deliveries, published to `<prefix>.dlq.<consumer>`, logged at error level and terminated.
 * Failures to reach the database are retried without limit instead (see isConnectionError).
 */
export async function startConsumer(opts: ConsumerOptions): Promise<RunningConsumer> {
  const { bus, pool, name, types, handle, logger } = opts;
  if (!CONSUMER_NAME.test(name)) throw new Error(`Invalid consumer name "${name}"`);
  const maxDeliver = opts.maxDeliver ?? 10;
  const backoffMs = opts.backoffMs ?? defaultBackoffMs;
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const log = { consumer: name };

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
      logger.warn({ ...log, eventId: envelope?.id, error: errorText(publishError) }, 'dead-lettering failed; will retry');
      m.nak(backoffMs(m.info.deliveryCount));
      return;
    }
    logger.error(
      { ...log, eventId: envelope?.id, type: envelope?.type, deliveries: m.info.deliveryCount, error: errorText(error), dlq: dlqSubject(bus.prefix, name) },
      'event dead-lettered',
    );
    m.term();
  }

  /** Returns true when the handler ran, false when the event had been applied before. */
  async function applyOnce(envelope: EventEnvelope): Promise<boolean> {
    return pool.transaction(async (tx) => {
      const fresh = await tx.maybeOne(sql.type(z.object({ event_id: z.string() }))`
        INSERT INTO event_consumed (consumer, event_id) VALUES (${name}, ${envelope.id})
        ON CONFLICT DO NOTHING
        RETURNING event_id
      `);
      if (!fresh) return false;
      await handle(envelope, tx);
      return true;
    });
  }

  async function processMessage(m: JsMsg): Promise<void> {
    if (!wantsSubject(bus.prefix, types, m.subject)) {
      m.ack(); // shares the filter subject but is not for this consumer
      return;
    }
    let envelope: EventEnvelope;
    try {
      envelope = parseEnvelope(m.string());
    } catch (error) {
      await deadLetter(m, null, new Error(`unreadable envelope: ${errorText(error)}`)); // retrying cannot help
      return;
    }
    const attempt = m.info.deliveryCount;
    const progress = setInterval(() => m.working(), Math.max(ackWaitMs / 3, 100));
    try {
      const ran = await applyOnce(envelope);
      if (!ran) logger.debug({ ...log, eventId: envelope.id }, 'event already applied; skipped');
      await m.ackAck().catch((error: unknown) => {
        // The effect is committed; a redelivery caused by a lost ack is a no-op.
        logger.debug({ ...log, eventId: envelope.id, error: errorText(error) }, 'ack not confirmed');
      });
    } catch (error) {
      if (attempt >= maxDeliver && !isConnectionError(error)) {
        await deadLetter(m, envelope, error);
      } else {
        const delay = backoffMs(attempt);
        logger.warn({ ...log, eventId: envelope.id, type: envelope.type, attempt, retryInMs: delay, error: errorText(error) }, 'event handler failed; will retry');
        m.nak(delay);
      }
    } finally {
      clearInterval(progress);
    }
  }

  let stopping = false;
  let messages: ConsumerMessages | null = null;
  let wakeRestart: (() => void) | null = null;

  const loop = (async () => {
    while (!stopping) {
      try {
        const consumer = await bus.js.consumers.get(bus.stream, name);
        messages = await consumer.consume({ max_messages: opts.prefetch ?? 10 });
        for await (const m of messages) {
          if (stopping) {
            m.nak(); // hand it back now instead of after ack_wait
            continue;
          }
          await processMessage(m);
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
        if (!stopping) await ensureDurable(bus, config, logger).catch(() => undefined);
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
