export * from './settings.js';
export type { SpanAttributes, SpanKindName, SpanOptions, TraceSpan } from './span.js';
export * from './trace-context.js';
export * from './tracing.js';
