import { connect } from '@nats-io/transport-node';
import type { Config } from '@wiki/config';
import { markShuttingDown } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';

export interface RunningMcp {
  app: FastifyInstance;
  /** Graceful: readiness off, SHUTDOWN_DELAY_MS, streams ended, HTTP drained, then NATS. */
  stop(): Promise<void>;
}

/**
 * Starts the MCP service. It owns no database (ARCHITECTURE 1), so it does not use the kit's
 * runner, which starts with one: only NATS (SSE messages between replicas) and the HTTP app.
 */
export async function startService(config: Config, opts: { logLevel?: string } = {}): Promise<RunningMcp> {
  const nc = await connect({
    servers: config.natsUrl,
    name: 'mcp',
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
  let app: FastifyInstance;
  try {
    app = await buildApp(config, { nc, logLevel: opts.logLevel });
  } catch (error) {
    await nc.close();
    throw error;
  }
  const stop = async () => {
    markShuttingDown(app);
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await app.close();
    await app.mcpSessions.detach();
    await nc.drain().catch(() => undefined);
  };
  return { app, stop };
}
