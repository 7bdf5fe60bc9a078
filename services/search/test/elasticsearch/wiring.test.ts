import { loadConfig } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
import { uniqueName } from '@wiki/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSearchEngine } from '../../src/engines/index.js';
import { fixture, type RecordedElasticsearch, startRecordedElasticsearch } from './recorded-server.js';

let es: RecordedElasticsearch;

beforeEach(async () => {
  es = await startRecordedElasticsearch();
});

afterEach(async () => {
  await es.close();
});

const logger = { info() {}, warn() {}, error() {} };

describe('SEARCH_ENGINE=elasticsearch', () => {
  it('makes createSearchEngine start the Elasticsearch engine on ELASTICSEARCH_URL, its alias named after DB_PREFIX', async () => {
    const prefix = uniqueName('wt');
    const alias = `${prefix}-search-documents`;
    es.on('PUT', new RegExp(`^/_index_template/${alias}$`), { status: 200, body: fixture('acknowledged') });
    es.on('HEAD', new RegExp(`^/${alias}$`), { status: 200 });
    es.on('PUT', new RegExp(`^/${alias}/_mapping$`), { status: 200, body: fixture('acknowledged') });
    es.on('GET', new RegExp(`^/_cluster/health/${alias}$`), { status: 200, body: fixture('cluster-health-green') });
    const config = loadConfig({
      NODE_ENV: 'test',
      DB_PREFIX: prefix,
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: es.url,
    });

    // The Elasticsearch engine does not use the service's database.
    const engine = await createSearchEngine(config, { pool: undefined as unknown as DatabasePool, logger });
    try {
      expect(engine.name).toBe('elasticsearch');
      await engine.health();
    } finally {
      await engine.close();
    }

    expect(es.unexpected).toEqual([]);
    expect(es.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /_index_template/${alias}`,
      `HEAD /${alias}`,
      `PUT /${alias}/_mapping`,
      `GET /_cluster/health/${alias}`,
    ]);
  });
});
