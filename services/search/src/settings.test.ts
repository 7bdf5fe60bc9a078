import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadSearchSettings } from './settings.js';

describe('search settings', () => {
  it('default to the Postgres engine with the simple text configuration', () => {
    expect(loadSearchSettings({})).toEqual({ engine: 'postgres', elasticsearchUrl: undefined, tsConfig: 'simple' });
    expect(loadSearchSettings({ SEARCH_TS_CONFIG: 'english' }).tsConfig).toBe('english');
  });

  it('take Elasticsearch with its URL', () => {
    expect(loadSearchSettings({ SEARCH_ENGINE: 'elasticsearch', ELASTICSEARCH_URL: 'http://es:9200/' })).toMatchObject({
      engine: 'elasticsearch',
      elasticsearchUrl: 'http://es:9200',
    });
  });

  it.each([
    [{ SEARCH_ENGINE: 'solr' }, 'SEARCH_ENGINE'],
    [{ SEARCH_ENGINE: 'elasticsearch' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_URL: 'es:9200' }, 'ELASTICSEARCH_URL'],
    [{ SEARCH_TS_CONFIG: 'english; drop' }, 'SEARCH_TS_CONFIG'],
  ])('names the variable of a bad value: %o', (env, variable) => {
    expect(() => loadSearchSettings(env)).toThrow(ConfigError);
    expect(() => loadSearchSettings(env)).toThrow(variable);
  });
});
