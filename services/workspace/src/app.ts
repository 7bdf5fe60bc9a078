// Brings in the route-schema fields of the OpenAPI description (tags, summary, hide, security).
import type {} from '@fastify/swagger';
import { identity } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { type DatabasePool, sql } from '@wiki/db';
import { createApp, registerHealth } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from './commands/context.js';
import { registerInternalRoutes } from './routes/internal.js';
import { registerInvitationRoutes } from './routes/invitations.js';
import { registerMcpKeyRoutes } from './routes/mcp-keys.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWorkspaceRoutes } from './routes/workspaces.js';

export interface AppDeps {
  pool: DatabasePool;
  /** Called after each committed change that may carry events (the outbox relay's kick). */
  afterCommit?: () => void;
  /** Readiness check of the event bus; omitted in tests that run without NATS. */
  natsHealth?: () => Promise<unknown>;
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

  const ctx: Context = { pool: deps.pool, config, afterCommit: deps.afterCommit ?? (() => {}) };

  const checks: Record<string, () => Promise<unknown>> = { database: () => deps.pool.query(sql.unsafe`SELECT 1`) };
  if (deps.natsHealth) checks.nats = deps.natsHealth;
  registerHealth(app, checks);

  registerWorkspaceRoutes(app, ctx);
  registerMemberRoutes(app, ctx);
  registerInvitationRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerMcpKeyRoutes(app, ctx);
  registerInternalRoutes(app, ctx);
  return app;
}
