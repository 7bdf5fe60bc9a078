import { describe, expect, it } from 'vitest';
import { tracingSettings } from './settings.js';
import { readTraceContext } from './trace-context.js';

describe('tracing settings', () => {
  it('are off without an OTLP endpoint', () => {
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
  });

  it('take the traces URL as it is, or the base URL with /v1/traces', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' })).toEqual({
      url: 'http://c:4318/custom',
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
      url: 'http://c:4318/v1/traces',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
      }),
    ).toEqual({ url: 'http://t/x' });
  });

  it('are off when disabled or the exporter is none, and refuse what they cannot do', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c:4317' })).toThrow(/http/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(/not a URL/);
  });
});

describe('a trace context read from headers', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  it('keeps a valid traceparent and tracestate', () => {
    expect(readTraceContext({ traceparent, tracestate: 'a=1' })).toEqual({ traceparent, tracestate: 'a=1' });
    expect(readTraceContext({ traceparent, tracestate: '' })).toEqual({ traceparent });
  });
  it('drops a malformed one', () => {
    expect(readTraceContext({})).toBeUndefined();
    expect(readTraceContext({ traceparent: traceparent.toUpperCase() })).toBeUndefined();
    expect(readTraceContext({ traceparent: traceparent.replace(/^00/, 'ff') })).toBeUndefined();
    expect(
      readTraceContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01' }),
    ).toBeUndefined();
    expect(readTraceContext({ traceparent, tracestate: 'x\n=1' })).toEqual({ traceparent });
  });
});
