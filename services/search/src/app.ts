import type { Config } from '@wiki/config';
import { sql } from '@wiki/db';
import { createMembershipAccess, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { ServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';
import type { SearchEngine } from './engines/engine.js';
import { createSearchEngine } from './engines/index.js';
import { registerSearchRoutes } from './routes/search.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The engine SEARCH_ENGINE chose: the route reads it, the indexer (service.ts) writes it. */
    searchEngine: SearchEngine;
    /** Who may read: the membership projection the route checks (service.ts starts its consumer). */
    searchMembership: MembershipAccess;
    /** The client for peers (the document service's whole text). */
    searchPeers: ServiceClient;
  }
}

export type AppDeps = ServiceAppDeps;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  // The engine is made once the app (and its logger) exists; its readiness is a check of its own.
  let engine: SearchEngine | undefined;
  const checks = {
    ...(deps.checks ?? { database: () => deps.pool.query(sql.unsafe`SELECT 1`) }),
    engine: async () => {
      if (!engine) throw new Error('the search engine is not ready');
      await engine.health();
    },
  };
  const { app, peers } = await createServiceApp(
    config,
    { ...deps, checks },
    {
      service: 'search',
      openapi: { title: 'Search service', description: 'Full-text search of documents (spec 4.4, ARCHITECTURE 5.8)' },
    },
  );
  engine = await createSearchEngine(config, { pool: deps.pool, logger: app.log });
  const access = createMembershipAccess({ pool: deps.pool, client: peers, service: 'search', logger: app.log });
  app.decorate('searchEngine', engine);
  app.decorate('searchMembership', access);
  app.decorate('searchPeers', peers);
  app.addHook('onClose', () => engine.close());
  registerSearchRoutes(app, { engine, access });
  return app;
}
