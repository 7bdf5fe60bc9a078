import type { FastifyInstance } from 'fastify';
import { markShuttingDown } from './health.js';

interface StopLogger {
  warn(obj: unknown, msg?: string): void;
}

/**
 * The one stop sequence of every process that serves HTTP (the service kit's runner, the
 * gateway): readiness off (`markShuttingDown`), SHUTDOWN_DELAY_MS for load balancers to notice,
 * drain HTTP (Fastify's `close()`: its preClose and onClose hooks, then the requests in flight),
 * then every other part in the reverse of the order it was opened. Parts are added as soon as they
 * are open, so a start that fails half way stops exactly what it had opened. A part that fails to
 * stop is logged and the others still stop; a second `stop()` does nothing.
 */
export class GracefulStop {
  private app: FastifyInstance | undefined;
  private readonly parts: Array<{ name: string; stop: () => Promise<unknown> }> = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly shutdownDelayMs: number,
    private readonly logger?: StopLogger,
  ) {}

  /** The app to take out of rotation and drain before the parts stop. */
  serving(app: FastifyInstance): void {
    this.app = app;
  }

  /** A part to stop after the app has drained (a pool, a connection, a consumer). */
  add(name: string, stop: () => Promise<unknown>): void {
    this.parts.push({ name, stop });
  }

  stop(): Promise<void> {
    this.stopping ??= this.run();
    return this.stopping;
  }

  private async run(): Promise<void> {
    const app = this.app;
    const logger = app?.log ?? this.logger;
    if (app) {
      markShuttingDown(app);
      if (this.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.shutdownDelayMs));
      // Fastify stops accepting, answers 503 on kept-alive connections and waits for in-flight requests.
      await app.close().catch((error) => logger?.warn({ err: error }, 'closing the HTTP server failed'));
    }
    for (const part of this.parts.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (error) {
        logger?.warn({ err: error, part: part.name }, 'stopping a part failed');
      }
    }
  }
}
