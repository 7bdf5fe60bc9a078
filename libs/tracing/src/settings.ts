import { type Env, envVar, readEnv, refuse, text } from '@wiki/config';

/** Where spans go, from the standard OpenTelemetry variables; null when tracing is off. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
}

/** An OTLP/HTTP URL (with `suffix` appended), as the URL class writes it. */
const otlpUrl = (suffix = '') =>
  envVar((raw) => {
    const value = raw?.trim();
    if (!value) return undefined;
    const full = `${suffix ? value.replace(/\/+$/, '') : value}${suffix}`;
    let url: URL | undefined;
    try {
      url = new URL(full);
    } catch {
      refuse(`is not a URL: ${full}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      refuse(`must be an http(s) URL (OTLP over HTTP): ${full}`);
    return url.toString();
  });

const exporter = envVar((raw) => {
  const value = raw?.trim().toLowerCase();
  if (value && value !== 'otlp' && value !== 'none') refuse(`must be otlp or none, got "${value}"`);
  return value;
});

/**
 * Tracing is on when an OTLP endpoint is configured: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the
 * traces URL as it is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, `/v1/traces` appended), as
 * the OpenTelemetry specification reads them. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off whatever the endpoint. Off is the default. A bad value
 * throws a ConfigError naming its variable.
 */
export function tracingSettings(env: Env): TracingSettings | null {
  const { OTEL_SDK_DISABLED: disabled } = readEnv(env, { OTEL_SDK_DISABLED: text() });
  if (disabled?.trim().toLowerCase() === 'true') return null;
  if (readEnv(env, { OTEL_TRACES_EXPORTER: exporter }).OTEL_TRACES_EXPORTER === 'none') return null;
  const traces = readEnv(env, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl() }).OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const url =
    traces ?? readEnv(env, { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl('/v1/traces') }).OTEL_EXPORTER_OTLP_ENDPOINT;
  return url ? { url } : null;
}
