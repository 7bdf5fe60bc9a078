import type { Env } from '@wiki/config';
import { tracingSettings } from './settings.js';
import type { SpanOptions, TraceSpan, TracingDriver } from './span.js';
import type { TraceContext } from './trace-context.js';

/**
 * Null until a service turns tracing on. Every function here checks it first, so with tracing off
 * (the default) the OpenTelemetry SDK is never imported and a call costs a null check.
 */
let driver: TracingDriver | null = null;
let loading: Promise<TracingDriver> | null = null;
let sdkLoaded = false;

/**
 * Whether spans are being made in this process, or, given a service, for that service: parts
 * sharing a process each turn tracing on or not from their own environment.
 */
export function tracingEnabled(service?: string): boolean {
  if (!driver) return false;
  return service === undefined || driver.traces(service);
}

/** Whether the OpenTelemetry SDK modules were imported in this process (never, with tracing off). */
export function tracingSdkLoaded(): boolean {
  return sdkLoaded;
}

/**
 * Turns tracing on for `service` when the environment configures an OTLP endpoint (settings.ts),
 * importing the SDK then and only then. Several services may run in one process (npm start's one
 * process, tests): each passes its own environment and gets its own tracer and exporter, whose
 * spans carry its name. Answers whether tracing is on for `service`.
 */
export async function startTracing(service: string, env: Env): Promise<boolean> {
  const settings = tracingSettings(env);
  if (!settings) return false;
  if (!loading) {
    sdkLoaded = true;
    loading = import('./sdk.js').then((sdk) => sdk.createDriver());
  }
  const loaded = await loading;
  loaded.addService(service, settings.url);
  driver = loaded;
  return true;
}

/** Sends the spans still buffered (a service about to stop, a test about to look). */
export async function flushTracing(): Promise<void> {
  await driver?.flush();
}

/** Flushes and stops every tracer of the process; tracing is off afterwards. */
export async function stopTracing(): Promise<void> {
  const stopping = driver;
  driver = null;
  loading = null;
  await stopping?.shutdown();
}

/** Starts a span for `service`, or answers null when tracing is off for it. The caller ends it. */
export function startSpan(service: string, options: SpanOptions): TraceSpan | null {
  return driver ? driver.startSpan(service, options) : null;
}

/** The current span as a context to hand on (an event envelope), or undefined (none, or tracing off). */
export function currentTraceContext(): TraceContext | undefined {
  return driver?.current();
}

/** `traceparent` (and `tracestate`) headers for a request made now, or undefined. */
export function traceHeaders(): Record<string, string> | undefined {
  const context = driver?.current();
  if (!context) return undefined;
  return context.tracestate
    ? { traceparent: context.traceparent, tracestate: context.tracestate }
    : { traceparent: context.traceparent };
}
