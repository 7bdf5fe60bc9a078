import { type Config, configOrExit, type ListenAddress, listenAddresses, loadConfigOrExit } from '@wiki/config';
import type { FastifyInstance } from 'fastify';
import { stopWithLauncher } from './launcher.js';
import { startMetricsListener } from './metrics.js';

export interface RunningApp {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * The tail of every `main.ts`: serve `/metrics` on its own address, listen on the API's (both from
 * `listenAddresses` of @wiki/config), and on the first SIGINT or SIGTERM stop gracefully (close
 * HTTP, consumers, relay, pools) and exit.
 */
export async function serveUntilSignalled(
  running: RunningApp,
  addresses: { api: ListenAddress; metrics: ListenAddress },
): Promise<void> {
  const { app, stop } = running;
  // First: a metrics port that is taken stops the start before the API takes any traffic.
  const metrics = await startMetricsListener(app, addresses.metrics);
  app.log.info({ host: addresses.metrics.host, port: metrics.port }, 'serving /metrics');
  await app.listen(addresses.api);
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app.log.info({ signal }, 'shutting down');
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

/** What a `main.ts` runs: how the process starts, where it listens, and its own settings. */
export interface MainOptions {
  start(config: Config): Promise<RunningApp>;
  /** Its API port. */
  port(config: Config): number;
  /** Keeps `/metrics` on loopback unless METRICS_HOST says otherwise (the gateway; see `listenAddresses`). */
  facesNetwork?: boolean;
  /**
   * Reads the process's own settings (its settings.ts) first, so that a bad value stops it naming
   * its variable before anything starts.
   */
  settings?(config: Config): unknown;
}

/**
 * The whole of a `main.ts` (the service kit's `runServiceMain`, the gateway's): stop with the
 * `npm start` that launched it, read the configuration (a bad one stops with its message), start,
 * listen, and stop gracefully on a signal.
 */
export async function runMain(options: MainOptions): Promise<void> {
  stopWithLauncher();
  const config = loadConfigOrExit();
  configOrExit(() => options.settings?.(config));
  const addresses = configOrExit(() =>
    listenAddresses(config, options.port(config), { facesNetwork: options.facesNetwork }),
  );
  await serveUntilSignalled(await options.start(config), addresses);
}
