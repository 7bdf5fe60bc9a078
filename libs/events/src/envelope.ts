import { randomUUID } from 'node:crypto';
import { currentTraceContext, readTraceContext } from '@wiki/tracing';

/** `D`: the data; `Type`: the event type, narrowed by TypedEvent (contracts.ts). */
export interface EventEnvelope<D = Record<string, unknown>, Type extends string = string> {
  id: string;
  type: Type;
  version: 1;
  occurredAt: string;
  actorId: string | null;
  workspaceId: string | null;
  data: D;
  /**
   * The W3C trace context of the span that produced the event (tracing on only; absent from
   * events written without it): the relay's and the consumers' spans are its children. Checked
   * when read (libs/tracing trace-context.ts: 55 characters; tracestate at most 512), a malformed
   * one dropped.
   */
  traceparent?: string;
  tracestate?: string;
}

export interface NewEvent<D = Record<string, unknown>, Type extends string = string> {
  type: Type;
  actorId?: string | null;
  workspaceId?: string | null;
  data: D;
}

/** Lower-case dot-separated tokens, e.g. `member.role_changed`; no wildcards, no spaces. */
const TYPE_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$/;

/** Throws when `type` cannot be an event type (it becomes a NATS subject, and `dlq.` is reserved). */
export function assertEventType(type: string): void {
  if (!TYPE_PATTERN.test(type))
    throw new Error(`Invalid event type "${type}": expected dot-separated lower-case tokens like "document.created"`);
  if (type.startsWith('dlq.'))
    throw new Error(`Invalid event type "${type}": the "dlq." namespace is reserved for dead letters`);
}

/**
 * A new envelope; with tracing on it carries the current span's context. The document service's
 * statements that build event data in SQL start from an envelope made here (jsonb_set of `data`),
 * so theirs carry it too.
 */
export function createEnvelope<D, Type extends string = string>(event: NewEvent<D, Type>): EventEnvelope<D, Type> {
  assertEventType(event.type);
  const envelope: EventEnvelope<D, Type> = {
    id: randomUUID(),
    type: event.type,
    version: 1,
    occurredAt: new Date().toISOString(),
    actorId: event.actorId ?? null,
    workspaceId: event.workspaceId ?? null,
    data: event.data,
  };
  const trace = currentTraceContext();
  if (trace) {
    envelope.traceparent = trace.traceparent;
    if (trace.tracestate) envelope.tracestate = trace.tracestate;
  }
  return envelope;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses a message body into an envelope, or throws saying what is wrong with it. */
export function parseEnvelope(body: string): EventEnvelope {
  const value: unknown = JSON.parse(body);
  if (typeof value !== 'object' || value === null) throw new Error('envelope is not an object');
  const e = value as Record<string, unknown>;
  if (typeof e.id !== 'string' || !UUID.test(e.id)) throw new Error('envelope.id is not a uuid');
  if (typeof e.type !== 'string') throw new Error('envelope.type is not a string');
  if (e.version !== 1) throw new Error(`envelope.version ${String(e.version)} is not supported`);
  if (typeof e.data !== 'object' || e.data === null) throw new Error('envelope.data is not an object');
  // Projections order events by it (a retried event arrives after later ones): a consumer must be
  // able to trust it is a time, written the one way.
  const occurredAt =
    e.occurredAt === undefined ? new Date(0) : new Date(typeof e.occurredAt === 'string' ? e.occurredAt : Number.NaN);
  if (Number.isNaN(occurredAt.getTime())) throw new Error('envelope.occurredAt is not a timestamp');
  const envelope: EventEnvelope = {
    id: e.id,
    type: e.type,
    version: 1,
    occurredAt: occurredAt.toISOString(),
    actorId: typeof e.actorId === 'string' ? e.actorId : null,
    workspaceId: typeof e.workspaceId === 'string' ? e.workspaceId : null,
    data: e.data as Record<string, unknown>,
  };
  // Optional and never a reason to refuse an event: one without (older) or with a bad one is read.
  const trace = e.traceparent === undefined ? undefined : readTraceContext(e);
  if (trace) {
    envelope.traceparent = trace.traceparent;
    if (trace.tracestate) envelope.tracestate = trace.tracestate;
  }
  return envelope;
}
