import type { Config } from '@wiki/config';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import { createAsUserClient } from './clients/as-user.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { SseSessions } from './transport/sse-sessions.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The SSE streams this replica holds (service.ts attaches them to NATS). */
    mcpSessions: SseSessions;
  }
}

export type AppDeps = ServiceAppDeps;

export const MCP_SERVER_VERSION = '0.1.0';
/** A tool call may carry a whole document (2 MiB of content, more once JSON-escaped). */
const BODY_LIMIT = 6 * 1024 * 1024;

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
  // Open streams would hold the shutdown up: end them first; their clients reconnect elsewhere.
  app.addHook('preClose', async () => sessions.closeAll());
  registerMcpRoutes(app, {
    sessions,
    users: createAsUserClient(config, app.log),
    peers,
    logger: app.log,
    version: MCP_SERVER_VERSION,
  });
  return app;
}
