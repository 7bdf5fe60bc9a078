/**
 * The OpenTelemetry SDK side: imported by tracing.ts only once tracing is on, so a process with
 * tracing off never loads any of these modules.
 */
import {
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { SpanKindName, SpanOptions, TraceSpan, TracingDriver } from './span.js';
import type { TraceContext } from './trace-context.js';

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

export function createDriver(): TracingDriver {
  // One context manager and propagator per process (the API keeps them globally); tracer
  // providers are per service and not registered globally, so that services sharing a process
  // (tests) each name their own spans.
  const propagator = new W3CTraceContextPropagator();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(propagator);

  // One provider (exporter, batch) per service: parts sharing a process (npm start's one process,
  // tests) each send their spans under their own name to their own endpoint.
  const providers = new Map<string, BasicTracerProvider>();
  const tracers = new Map<string, Tracer>();

  function parentContext(parent: SpanOptions['parent']): Context {
    if (parent === undefined || parent === 'active') return context.active();
    if (parent === 'root') return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, parent, defaultTextMapGetter);
  }

  return {
    addService(service, url) {
      if (providers.has(service)) return;
      // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over the part's own name.
      const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }).merge(
        detectResources({ detectors: [envDetector] }),
      );
      // The sampler comes from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default: parent-based,
      // always on), the batching from OTEL_BSP_*: the SDK reads them.
      const provider = new BasicTracerProvider({
        resource,
        spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
      });
      providers.set(service, provider);
      const tracer = provider.getTracer('wiki');
      tracers.set(service, tracer);
    },

    traces: (service) => tracers.has(service),

    startSpan(service, options) {
      const tracer = tracers.get(service);
      if (!tracer) return null;
      const parent = parentContext(options.parent);
      const span = tracer.startSpan(
        options.name,
        { kind: KINDS[options.kind], attributes: options.attributes, root: options.parent === 'root' },
        parent,
      );
      return wrap(span, parent);
    },

    current() {
      const active = context.active();
      if (!trace.getSpan(active)) return undefined;
      const carrier: Record<string, string> = {};
      propagator.inject(active, carrier, defaultTextMapSetter);
      return carrier.traceparent
        ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) }
        : undefined;
    },

    async flush() {
      await Promise.all([...providers.values()].map((p) => p.forceFlush()));
    },

    async shutdown() {
      await Promise.all([...providers.values()].map((p) => p.shutdown()));
      providers.clear();
      tracers.clear();
      context.disable();
      propagation.disable();
    },
  };

  function wrap(span: Span, parent: Context): TraceSpan {
    const own = trace.setSpan(parent, span);
    return {
      setAttribute: (key, value) => void span.setAttribute(key, value),
      fail(error) {
        if (error instanceof Error) span.recordException(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
      },
      run: (fn) => context.with(own, fn),
      context(): TraceContext {
        const carrier: Record<string, string> = {};
        propagator.inject(own, carrier, defaultTextMapSetter);
        return { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) };
      },
      end: () => span.end(),
    };
  }
}
