import { ConfigError } from './config-error.js';
import type { Config } from './shared-config.js';

/** How far above a part's own port its `/metrics` listener is by default (METRICS_PORT unset). */
export const METRICS_PORT_OFFSET = 1000;

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Where a part listens: its API on `port` (its PORT or <SERVICE>_PORT) and host HOST, and its
 * `/metrics` apart (ARCHITECTURE 5.14): METRICS_PORT, else `port` + 1000 (so replicas at port + 100
 * each get their own), else 0 when `port` is 0 (any free port: ask the listener which); on
 * METRICS_HOST, else the API's host, but loopback on a part that `facesNetwork` (the gateway).
 */
export function listenAddresses(
  config: Pick<Config, 'listenHost' | 'metrics'>,
  port: number,
  { facesNetwork = false } = {},
): { api: ListenAddress; metrics: ListenAddress } {
  let metricsPort = config.metrics.port;
  if (metricsPort === undefined) {
    metricsPort = port === 0 ? 0 : port + METRICS_PORT_OFFSET;
    if (metricsPort > 65535) {
      throw new ConfigError(
        'METRICS_PORT',
        `must be set: the default, port ${port} + ${METRICS_PORT_OFFSET}, is past 65535`,
      );
    }
  }
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from the API's port (${port}): /metrics is never served there`);
  }
  const metricsHost = config.metrics.host ?? (facesNetwork ? '127.0.0.1' : config.listenHost);
  return { api: { host: config.listenHost, port }, metrics: { host: metricsHost, port: metricsPort } };
}
