/**
 * The W3C trace context as it travels between processes: in the `traceparent` / `tracestate`
 * headers of a request and in an event envelope. Plain strings checked here, so that carrying
 * one needs no OpenTelemetry module loaded.
 */
export interface TraceContext {
  /** `00-<trace id>-<parent span id>-<flags>`: always 55 characters. */
  traceparent: string;
  /** Vendor entries, when the trace has any (at most 512 characters, W3C's limit). */
  tracestate?: string;
}

export const TRACEPARENT_LENGTH = 55;
export const TRACESTATE_MAX_LENGTH = 512;

// Version 00 only (its fields are the whole header); an all-zero trace or span id is invalid.
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
// Printable ASCII without the characters that would end a header value or a JSON string badly.
const TRACESTATE = /^[\x20-\x7e]*$/;

export function isTraceparent(value: unknown): value is string {
  return typeof value === 'string' && value.length === TRACEPARENT_LENGTH && TRACEPARENT.test(value);
}

export function isTracestate(value: unknown): value is string {
  return typeof value === 'string' && value.length <= TRACESTATE_MAX_LENGTH && TRACESTATE.test(value);
}

/**
 * The trace context held by `fields` (request headers, a parsed envelope), or undefined when it
 * has none or a malformed one: a bad context is dropped, never an error (the trace starts anew).
 */
export function readTraceContext(fields: Record<string, unknown>): TraceContext | undefined {
  if (!isTraceparent(fields.traceparent)) return undefined;
  return isTracestate(fields.tracestate) && fields.tracestate !== ''
    ? { traceparent: fields.traceparent, tracestate: fields.tracestate }
    : { traceparent: fields.traceparent };
}
