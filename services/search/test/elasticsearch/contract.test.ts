import { Client } from '@elastic/elasticsearch';
import { uniqueName } from '@wiki/testing';
import { describe, it } from 'vitest';
import { ElasticsearchEngine } from '../../src/engines/elasticsearch/index.js';
import { firstIndexName } from '../../src/engines/elasticsearch/index-template.js';
import { describeEngineContract } from '../engine-contract.js';

/**
 * The shared engine contract against a real Elasticsearch 9 node, when ELASTICSEARCH_URL names
 * one (`docker compose --profile search up -d elasticsearch`, then
 * `ELASTICSEARCH_URL=http://127.0.0.1:9200 npx vitest run services/search/test/elasticsearch`).
 * Each run has its own alias (and index and template), deleted at the end.
 */
const url = process.env.ELASTICSEARCH_URL;

if (url) {
  describeEngineContract('elasticsearch', async () => {
    const alias = `${uniqueName('wt')}-search-documents`;
    // Writes wait until they are searchable: the contract searches right after writing.
    const engine = await ElasticsearchEngine.start({ url, alias, refresh: 'wait_for' });
    return {
      engine,
      async cleanup() {
        await engine.close();
        const admin = new Client({ node: url });
        try {
          // By name: Elasticsearch 8+ refuses wildcard deletes (action.destructive_requires_name).
          await admin.indices.delete({ index: firstIndexName(alias) }, { ignore: [404] });
          await admin.indices.deleteIndexTemplate({ name: alias });
        } finally {
          await admin.close();
        }
      },
    };
  });
} else {
  describe.skip('search engine contract: elasticsearch (runs when ELASTICSEARCH_URL is set)', () => {
    it('needs an Elasticsearch node', () => {});
  });
}
