// Brings in the route-schema fields of the OpenAPI description (tags, summary, hide, security).
import type {} from '@fastify/swagger';
import { identity } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { type DatabasePool, sql } from '@wiki/db';
import { createApp, type HealthCheck, registerHealth } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from './commands/context.js';
import { registerInternalRoutes } from './routes/internal.js';
import { registerInvitationRoutes } from './routes/invitations.js';
import { registerMcpKeyRoutes } from './routes/mcp-keys.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWorkspaceRoutes } from './routes/workspaces.js';

export interface AppDeps {
  /** The service kit's pool: transactions that write events wake the outbox relay on commit. */
  pool: DatabasePool;
  /** Readiness checks (the kit's: database, NATS, shutdown); tests may leave them out. */
  checks?: Record<string, HealthCheck>;
  logLevel?: string;
}

/** The workspace service's HTTP app (no listen): users, workspaces, members, invitations, MCP keys. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = await createApp({
    service: 'workspace',
    logLevel: deps.logLevel ?? config.logLevel,
    openapi: { title: 'Workspace service', description: 'Users, workspaces, members, invitations and MCP keys' },
  });
  await app.register(identity, { secret: config.internalTokenSecret });

  const ctx: Context = { pool: deps.pool, config };
  registerHealth(app, deps.checks ?? { database: () => deps.pool.query(sql.unsafe`SELECT 1`) });

  registerWorkspaceRoutes(app, ctx);
  registerMemberRoutes(app, ctx);
  registerInvitationRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerMcpKeyRoutes(app, ctx);
  registerInternalRoutes(app, ctx);
  return app;
}
