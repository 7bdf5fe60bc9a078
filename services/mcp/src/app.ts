import type { Config } from '@wiki/config';
import { addScrapeCounter, addScrapeGauge } from '@wiki/http';
import { createServiceApp, type DatabaselessAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import { createAsUserClient } from './clients/as-user.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { createSessionLimit, type SessionLimit } from './transport/session-limit.js';
import { SseSessions } from './transport/sse-sessions.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The SSE streams this replica holds. */
    mcpSessions: SseSessions;
    /** MCP_SESSIONS_PER_KEY across replicas. */
    mcpSessionLimit: SessionLimit;
  }
}

/** Readiness checks (the kit's: NATS) and the log level. */
export type AppDeps = DatabaselessAppDeps;

export const MCP_SERVER_VERSION = '0.1.0';
/** A tool call may carry a whole document (2 MiB of content, more once JSON-escaped). */
const BODY_LIMIT = 6 * 1024 * 1024;

/**
 * The kit's app (libs/service createServiceApp) without a database: Fastify from libs/http, the
 * identity plugin, health (NATS) and the peers client. The MCP service keeps no state of its own.
 * The sessions and their limit route over NATS once the kit has connected (service.ts).
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { app, peers } = await createServiceApp(config, deps, {
    service: 'mcp',
    bodyLimit: BODY_LIMIT,
    openapi: {
      title: 'MCP service',
      description: 'The wiki tools for AI assistants over MCP (spec 4.11, ARCHITECTURE 5.12)',
    },
  });
  const sessions = new SseSessions({
    subjectBase: `_MCP.${config.eventsPrefix}.session`,
    internalTokenSecret: config.internalTokenSecret,
    logger: app.log,
  });
  app.decorate('mcpSessions', sessions);
  addScrapeGauge(app, {
    name: 'mcp_sse_sessions_open',
    help: 'MCP SSE sessions this replica holds',
    read: () => sessions.size,
  });
  // Open streams would hold the shutdown up: end them first; their clients reconnect elsewhere.
  app.addHook('preClose', async () => sessions.closeAll());
  const sessionLimit = createSessionLimit(config, app.log);
  await sessionLimit.ready();
  app.decorate('mcpSessionLimit', sessionLimit);
  app.addHook('onClose', () => sessionLimit.close());
  addScrapeCounter(app, {
    name: 'mcp_sse_sessions_pushed_out_total',
    help: 'SSE sessions closed because a newer one of the same MCP key went past MCP_SESSIONS_PER_KEY',
    read: () => sessionLimit.pushedOut,
  });
  registerMcpRoutes(app, {
    sessions,
    sessionLimit,
    users: createAsUserClient(peers),
    peers,
    logger: app.log,
    version: MCP_SERVER_VERSION,
  });
  return app;
}
