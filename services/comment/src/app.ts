import type { Config } from '@wiki/config';
import { createMembershipAccess, createUsersProjection, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import { documentServiceClient } from './clients/document-service.js';
import type { CommentContext } from './commands/context.js';
import { createPreparedReads, type PreparedReads } from './db/prepared-reads.js';
import { documentDirectory } from './projections/documents.js';
import { registerCommentRoutes } from './routes/comments.js';
import { registerInternalRoutes } from './routes/internal.js';
import { registerThreadRoutes } from './routes/threads.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The membership projection the comment routes check roles against (service.ts starts its consumer). */
    commentMembership: MembershipAccess;
  }
}

export interface AppDeps extends ServiceAppDeps {
  /** Defaults to prepared statements on a pool of the service's own (closed with the app). */
  reads?: PreparedReads;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { app, peers } = await createServiceApp(config, deps, {
    service: 'comment',
    openapi: { title: 'Comment service', description: 'Comment threads anchored to document blocks (spec 4.6)' },
  });
  const access = createMembershipAccess({ pool: deps.pool, client: peers, service: 'comment', logger: app.log });
  app.decorate('commentMembership', access);

  let reads = deps.reads;
  if (!reads) {
    const owned = createPreparedReads(config.databaseUrls.comment, app.log);
    app.addHook('onClose', () => owned.end());
    reads = owned;
  }

  const ctx: CommentContext = {
    pool: deps.pool,
    reads,
    access,
    documents: documentDirectory(deps.pool, documentServiceClient(peers)),
    users: createUsersProjection({ pool: deps.pool, client: peers, logger: app.log }),
    logger: app.log,
  };
  registerThreadRoutes(app, ctx);
  registerCommentRoutes(app, ctx);
  registerInternalRoutes(app, ctx);
  return app;
}
