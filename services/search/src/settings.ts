import { ConfigError, type Env, matching, oneOf, readEnv, url } from '@wiki/config';

/** What the search service reads besides the shared configuration (libs/config). */
export interface SearchSettings {
  /** SEARCH_ENGINE: postgres (default) or elasticsearch. */
  engine: 'postgres' | 'elasticsearch';
  /** ELASTICSEARCH_URL: required with the elasticsearch engine. */
  elasticsearchUrl?: string;
  /**
   * The Postgres text search configuration (SEARCH_TS_CONFIG, default 'simple') whose lexemes the
   * Postgres engine adds beside its own folded words, n-grams and suffixes (e.g. 'english' for stems).
   */
  tsConfig: string;
}

/** Read where the engine is made (engines/index.ts); a bad value names its variable (ConfigError). */
export function loadSearchSettings(env: Env): SearchSettings {
  const read = readEnv(env, {
    SEARCH_ENGINE: oneOf(['postgres', 'elasticsearch'] as const, 'postgres'),
    ELASTICSEARCH_URL: url(['http:', 'https:']),
    SEARCH_TS_CONFIG: matching(/^[a-z_][a-z0-9_]{0,62}$/, 'a text search configuration name', 'simple'),
  });
  if (read.SEARCH_ENGINE === 'elasticsearch' && !read.ELASTICSEARCH_URL) {
    throw new ConfigError('ELASTICSEARCH_URL', 'is required when SEARCH_ENGINE=elasticsearch');
  }
  return { engine: read.SEARCH_ENGINE, elasticsearchUrl: read.ELASTICSEARCH_URL, tsConfig: read.SEARCH_TS_CONFIG };
}
