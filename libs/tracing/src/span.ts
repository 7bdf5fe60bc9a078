import type { TraceContext } from './trace-context.js';

export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer' | 'internal';
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  name: string;
  kind: SpanKindName;
  /**
   * `'active'` (default): the span current where this one starts; a TraceContext: that remote
   * parent (from a header or an envelope); `'root'`: a new trace.
   */
  parent?: 'active' | 'root' | TraceContext;
  attributes?: SpanAttributes;
}

/** A started span. Never thrown from: tracing must not break the work it watches. */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span failed (status ERROR), recording the error when there is one. */
  fail(error?: unknown): void;
  /** Runs `fn` with this span as the current one: spans, requests and events started in it are its children. */
  run<T>(fn: () => T): T;
  /** This span as a parent for another process. */
  context(): TraceContext;
  end(): void;
}

/** What the OpenTelemetry SDK provides (sdk.ts, loaded only when tracing is on). */
export interface TracingDriver {
  addService(service: string, url: string): void;
  /** Whether `service` turned tracing on (its own environment configured an endpoint). */
  traces(service: string): boolean;
  /** Null for a service that did not turn tracing on. */
  startSpan(service: string, options: SpanOptions): TraceSpan | null;
  current(): TraceContext | undefined;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}
