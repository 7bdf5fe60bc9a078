import type { Config } from '@wiki/config';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import type { Context } from './commands/context.js';
import { createPreparedReads, type PreparedReads } from './db/prepared-reads.js';
import { registerEmailRoutes } from './routes/email.js';
import { registerInternalRoutes } from './routes/internal.js';
import { registerInvitationRoutes } from './routes/invitations.js';
import { registerMcpKeyRoutes } from './routes/mcp-keys.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWorkspaceRoutes } from './routes/workspaces.js';
import { loadWorkspaceSettings } from './settings.js';

export interface AppDeps extends ServiceAppDeps {
  /** Defaults to prepared statements on a pool of the service's own (closed with the app). */
  reads?: PreparedReads;
}

/** The workspace service's HTTP app (no listen): users, workspaces, members, invitations, MCP keys, e-mail unsubscribe. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { app } = await createServiceApp(config, deps, {
    service: 'workspace',
    openapi: { title: 'Workspace service', description: 'Users, workspaces, members, invitations and MCP keys' },
  });
  let reads = deps.reads;
  if (!reads) {
    const owned = createPreparedReads(config.databaseUrls.workspace, app.log);
    app.addHook('onClose', () => owned.end());
    reads = owned;
  }
  const ctx: Context = { pool: deps.pool, reads, config, settings: loadWorkspaceSettings(config) };

  registerWorkspaceRoutes(app, ctx);
  registerMemberRoutes(app, ctx);
  registerInvitationRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerMcpKeyRoutes(app, ctx);
  registerEmailRoutes(app, ctx);
  registerInternalRoutes(app, ctx);
  return app;
}
