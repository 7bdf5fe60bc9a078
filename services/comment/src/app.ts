import {
  createMembershipAccess,
  createServiceClient,
  createUsersProjection,
  identity,
  type MembershipAccess,
} from '@wiki/auth';
import type { Config } from '@wiki/config';
import { type DatabasePool, sql } from '@wiki/db';
import { createApp, type HealthCheck, registerHealth } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { documentServiceClient } from './clients/document-service.js';
import type { CommentContext } from './commands/context.js';
import { documentDirectory } from './projections/documents.js';
import { registerCommentRoutes } from './routes/comments.js';
import { registerThreadRoutes } from './routes/threads.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The membership projection the comment routes check roles against (service.ts starts its consumer). */
    commentMembership: MembershipAccess;
  }
}

export interface AppDeps {
  /** The service kit's pool: a transaction that wrote events wakes the outbox relay on commit. */
  pool: DatabasePool;
  /** Readiness checks (the kit's: database, NATS, shutdown); by default the database alone. */
  checks?: Record<string, HealthCheck>;
  logLevel?: string;
}

const ping = sql.unsafe`SELECT 1`;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = await createApp({
    service: 'comment',
    logLevel: deps.logLevel ?? config.logLevel,
    openapi: { title: 'Comment service', description: 'Comment threads anchored to document blocks (spec 4.6)' },
  });
  await app.register(identity, { secret: config.internalTokenSecret });

  const peers = createServiceClient({ service: 'comment', config, logger: app.log });
  const access = createMembershipAccess({ pool: deps.pool, client: peers, service: 'comment', logger: app.log });
  app.decorate('commentMembership', access);

  const ctx: CommentContext = {
    pool: deps.pool,
    access,
    documents: documentDirectory(deps.pool, documentServiceClient(peers)),
    users: createUsersProjection({ pool: deps.pool, client: peers, logger: app.log }),
    logger: app.log,
  };
  registerThreadRoutes(app, ctx);
  registerCommentRoutes(app, ctx);
  registerHealth(app, deps.checks ?? { database: () => deps.pool.query(ping) });
  return app;
}
