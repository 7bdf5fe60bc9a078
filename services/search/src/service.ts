import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { startDocumentIndexer } from './events/document-indexer.js';
import { startPassageIndexer } from './events/passage-indexer.js';
import { startTombstonePruner } from './events/tombstone-pruner.js';
import { loadSearchSettings } from './settings.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const searchMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/** Full-text search fed by document, comment and attachment events; who may read from the membership projection. */
export const searchService = defineService({
  name: 'search',
  migrations: [membershipMigrations, searchMigrations],
  settings: (config) => loadSearchSettings(config.env),
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [
    ({ app, bus }) => app.searchMembership.startProjection(bus),
    ({ app, bus, pool, logger }) =>
      startDocumentIndexer({ bus, pool, engine: app.searchEngine, peers: app.searchPeers, logger }),
    ({ app, bus, pool, logger }) =>
      startPassageIndexer({ bus, pool, engine: app.searchEngine, peers: app.searchPeers, logger }),
  ],
  jobs: [({ pool, logger }) => startTombstonePruner(pool, logger)],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(searchService, config, opts);
