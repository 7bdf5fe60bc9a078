import type { FastifyInstance } from 'fastify';

export interface RunningApp {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * The tail of every `main.ts`: listen on `port` (on HOST, default all interfaces), and on the
 * first SIGINT or SIGTERM stop gracefully (close HTTP, consumers, relay, pools) and exit.
 */
export async function serveUntilSignalled(running: RunningApp, port: number): Promise<void> {
  const { app, stop } = running;
  await app.listen({ port, host: process.env.HOST ?? '0.0.0.0' });
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
