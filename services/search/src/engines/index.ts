import type { Config } from '@wiki/config';
import { createPreparedPool, type DatabasePool, type PreparedPool } from '@wiki/db';
import { loadSearchSettings } from '../settings.js';
import { withAnswerCache } from './answer-cache.js';
import type { SearchEngine } from './engine.js';
import { createPostgresEngine } from './postgres.js';

export type { DocumentPatch, IdPage, IndexedDocument, SearchEngine, SearchHit, SearchQuery } from './engine.js';

/** What an engine may log (pino's and Fastify's loggers fit). */
export interface EngineLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EngineDeps {
  /** The search service's database pool (the Postgres engine keeps its index there). */
  pool: DatabasePool;
  logger: EngineLogger;
}

/** Connections of the search path's own pool (prepared statements: the versions, the Postgres engine's search). */
const READ_CONNECTIONS = 10;

type EngineConfig = Pick<Config, 'env' | 'dbPrefix' | 'databaseUrls'>;

/**
 * The engine `SEARCH_ENGINE` chooses, with repeated searches answered from memory until the
 * workspace's index changes (answer-cache.ts). Async because an engine may have to check or prepare
 * its store before it answers (the Postgres engine checks SEARCH_TS_CONFIG exists).
 */
export async function createSearchEngine(config: EngineConfig, deps: EngineDeps): Promise<SearchEngine> {
  // Searches run named statements (planned once per connection) on a pool of their own; it
  // connects on first use, so an engine that never searches (a reindex) opens no connection.
  const reads = createPreparedPool(config.databaseUrls.search, deps.logger, READ_CONNECTIONS, {
    // A search's plan depends on no value of its parameters (tsquery selectivity is unknown to the
    // planner either way): planning it anew cost ~0.4 ms at 100,000 documents, the generic plan is the same.
    plan_cache_mode: 'force_generic_plan',
  });
  let chosen: SearchEngine;
  try {
    chosen = await createChosenEngine(config, deps, reads);
  } catch (error) {
    await reads.end();
    throw error;
  }
  const engine = withAnswerCache(chosen, reads);
  return {
    ...engine,
    async close() {
      await engine.close();
      await reads.end();
    },
  };
}

async function createChosenEngine(config: EngineConfig, deps: EngineDeps, reads: PreparedPool): Promise<SearchEngine> {
  const settings = loadSearchSettings(config.env);
  switch (settings.engine) {
    case 'postgres':
      return createPostgresEngine({ pool: deps.pool, reads, tsConfig: settings.tsConfig });
    case 'elasticsearch': {
      // Loaded only when chosen: the Elasticsearch client is ~10 MiB of RSS the default engine
      // does not need. The URL is set: the settings refuse the engine without it.
      const { ElasticsearchEngine, elasticsearchAlias } = await import('./elasticsearch/index.js');
      return ElasticsearchEngine.start({
        url: settings.elasticsearchUrl as string,
        alias: elasticsearchAlias(config.dbPrefix),
      });
    }
  }
}
