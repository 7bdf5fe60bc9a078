import { describe, expect, it } from 'vitest';
import { createEnvelope, parseEnvelope } from './envelope.js';
import { traceOfSerialized } from './tracing.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function envelopeText(extra: Record<string, unknown>): string {
  const { traceparent: _t, tracestate: _s, ...plain } = createEnvelope({ type: 'document.created', data: { id: 'x' } });
  return JSON.stringify({ ...plain, ...extra });
}

describe('the trace context in an event envelope', () => {
  it('is absent with tracing off, and an event without it is read as before', () => {
    const envelope = createEnvelope({ type: 'document.created', data: { id: 'x' } });
    expect(envelope).not.toHaveProperty('traceparent');
    const parsed = parseEnvelope(envelopeText({}));
    expect(parsed).not.toHaveProperty('traceparent');
    expect(parsed.type).toBe('document.created');
  });

  it('is kept when valid, with its tracestate', () => {
    const parsed = parseEnvelope(envelopeText({ traceparent: TRACEPARENT, tracestate: 'vendor=abc' }));
    expect(parsed.traceparent).toBe(TRACEPARENT);
    expect(parsed.tracestate).toBe('vendor=abc');
  });

  it('is dropped, not refused, when malformed or too long', () => {
    for (const bad of [
      { traceparent: 'nonsense' },
      { traceparent: `${TRACEPARENT}-extra` },
      { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
      { traceparent: 42 },
    ]) {
      const parsed = parseEnvelope(envelopeText(bad));
      expect(parsed).not.toHaveProperty('traceparent');
      expect(parsed.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const long = parseEnvelope(envelopeText({ traceparent: TRACEPARENT, tracestate: `a=${'b'.repeat(600)}` }));
    expect(long.traceparent).toBe(TRACEPARENT);
    expect(long).not.toHaveProperty('tracestate');
  });

  it('is found in the stored text the relay publishes (jsonb puts it after data)', () => {
    const stored = `{"id": "a", "data": {"traceparent": "00-11111111111111111111111111111111-2222222222222222-01"}, "type": "x.y", "traceparent": "${TRACEPARENT}", "tracestate": "k=v"}`;
    expect(traceOfSerialized(stored)).toEqual({ traceparent: TRACEPARENT, tracestate: 'k=v' });
    expect(traceOfSerialized(envelopeText({}))).toBeUndefined();
    expect(traceOfSerialized('{"traceparent": "bad"}')).toBeUndefined();
  });
});
