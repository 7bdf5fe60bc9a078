import { createRequire } from 'node:module';

/**
 * Whether a module of the OpenTelemetry SDK (not the API, which other libraries load) was loaded in
 * this process. Its packages are CommonJS, and Node keeps every CommonJS module it loaded, imported
 * from ESM too, in the require cache: an account of what was loaded that does not rely on the
 * tracing library's own bookkeeping.
 */
export function otelSdkModulesLoaded(): string[] {
  const cache = createRequire(import.meta.url).cache;
  return Object.keys(cache).filter((path) =>
    /[/\\]@opentelemetry[/\\](sdk-trace-base|sdk-trace|exporter-trace-otlp-http|context-async-hooks)[/\\]/.test(path),
  );
}
