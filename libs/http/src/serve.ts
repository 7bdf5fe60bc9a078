import type { ListenAddress } from '@wiki/config';
import type { FastifyInstance } from 'fastify';
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
