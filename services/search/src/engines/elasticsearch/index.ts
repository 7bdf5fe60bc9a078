export { ElasticsearchEngine, type ElasticsearchEngineOptions, SUPPORTED_ELASTICSEARCH_MAJOR } from './engine.js';
export { ElasticsearchBulkError } from './writes.js';

/** The alias of a deployment's search index (index names are lowercase; DB_PREFIX already is). */
export function elasticsearchAlias(dbPrefix: string): string {
  return `${dbPrefix}-search-documents`;
}
