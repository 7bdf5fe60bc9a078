import { readTraceContext, startSpan, type TraceContext, tracingEnabled } from '@wiki/tracing';
import type { EventEnvelope } from './envelope.js';

/**
 * Spans of the event path (with tracing on; otherwise each function only runs the work): the
 * relay's publish of an event and a consumer's handling of it, both children of the span that
 * produced the event, whose context the envelope carries (`traceparent`, createEnvelope). An event
 * without one (written before tracing was on, or outside any span) starts a trace of its own.
 */

const TRACEPARENT_KEY = '"traceparent":';
const TRACESTATE_KEY = '"tracestate":';

/**
 * The trace context of an envelope as its JSON text (the relay publishes the text as stored and
 * does not parse it). The last occurrence of the key is the envelope's own: createEnvelope writes
 * it after `data`, and Postgres' jsonb puts longer keys after shorter ones, so a key of the same
 * name inside `data` comes first. A value that is not a valid context is ignored.
 */
export function traceOfSerialized(json: string): TraceContext | undefined {
  const traceparent = stringAfter(json, TRACEPARENT_KEY);
  if (traceparent === undefined) return undefined;
  return readTraceContext({ traceparent, tracestate: stringAfter(json, TRACESTATE_KEY) });
}

/** The string value after the last `key` in `json`, when it is a plain string without escapes. */
function stringAfter(json: string, key: string): string | undefined {
  const at = json.lastIndexOf(key);
  if (at < 0) return undefined;
  const open = json.indexOf('"', at + key.length);
  if (open < 0 || json.slice(at + key.length, open).trim() !== '') return undefined;
  const close = json.indexOf('"', open + 1);
  if (close < 0) return undefined;
  const value = json.slice(open + 1, close);
  return value.includes('\\') ? undefined : value;
}

/** The relay's publish of one outbox row, as a producer span ended when NATS acknowledged it (or failed). */
export function tracePublish<T>(
  service: string,
  row: { id: string; type: string; envelope: string },
  subjectOf: (type: string) => string,
  publish: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled(service)) return publish();
  const span = startSpan(service, {
    name: `publish ${row.type}`,
    kind: 'producer',
    parent: traceOfSerialized(row.envelope) ?? 'root',
    attributes: {
      'messaging.system': 'nats',
      'messaging.operation.type': 'send',
      'messaging.destination.name': subjectOf(row.type),
      'messaging.message.id': row.id,
      'wiki.event.type': row.type,
    },
  });
  if (!span) return publish();
  return publish().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    },
  );
}

/**
 * A consumer's handling of events applied together: one consumer span per event, each the child of
 * its producer's span, lasting the transaction that applies them. Of a lone event, the span is the
 * current one while the handler runs (spans, requests and events it makes are its children).
 */
export async function traceConsume<T>(
  consumer: string,
  envelopes: readonly EventEnvelope[],
  apply: () => Promise<T>,
): Promise<T> {
  // Consumers are named `<service>-<what>` (the kit's metrics rely on it too).
  const service = consumer.split('-', 1)[0];
  if (!tracingEnabled(service)) return apply();
  const spans = envelopes.flatMap((envelope) => {
    const span = startSpan(service, {
      name: `process ${envelope.type}`,
      kind: 'consumer',
      parent: readTraceContext(envelope as unknown as Record<string, unknown>) ?? 'root',
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': consumer,
        'messaging.message.id': envelope.id,
        'messaging.batch.message_count': envelopes.length,
        'wiki.event.type': envelope.type,
      },
    });
    return span ? [span] : [];
  });
  try {
    return await (spans.length === 1 ? spans[0].run(apply) : apply());
  } catch (error) {
    for (const span of spans) span.fail(error);
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}
