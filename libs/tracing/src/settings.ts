/** Where spans go, from the standard OpenTelemetry variables; null when tracing is off. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
}

/**
 * Tracing is on when an OTLP endpoint is configured: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the
 * traces URL as it is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, `/v1/traces` appended), as
 * the OpenTelemetry specification reads them. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off whatever the endpoint. Off is the default.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return null;
  if (exporter && exporter !== 'otlp')
    throw new Error(`OTEL_TRACES_EXPORTER=${exporter} is not supported (otlp or none)`);
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return { url: checkedUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return { url: checkedUrl(`${base.replace(/\/+$/, '')}/v1/traces`, 'OTEL_EXPORTER_OTLP_ENDPOINT') };
  return null;
}

function checkedUrl(value: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${variable} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${variable} must be an http(s) URL (OTLP over HTTP): ${value}`);
  return url.toString();
}
