import type { Config } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
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

/**
 * The engine `SEARCH_ENGINE` chooses, with repeated searches answered from memory until the
 * index changes (answer-cache.ts). Async because an engine may have to check or prepare its
 * store before it answers (the Postgres engine checks SEARCH_TS_CONFIG exists).
 */
export async function createSearchEngine(
  config: Pick<Config, 'env' | 'dbPrefix'>,
  deps: EngineDeps,
): Promise<SearchEngine> {
  return withAnswerCache(await createChosenEngine(config, deps), deps.pool);
}

async function createChosenEngine(config: Pick<Config, 'env' | 'dbPrefix'>, deps: EngineDeps): Promise<SearchEngine> {
  const settings = loadSearchSettings(config.env);
  switch (settings.engine) {
    case 'postgres':
      return createPostgresEngine({ pool: deps.pool, tsConfig: settings.tsConfig });
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
