import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { loadStorageSettings } from '@wiki/storage';
import { buildApp } from './app.js';
import { startImportFileSweeper } from './events/import-file-sweep.js';
import { startOrphanSweeper } from './events/orphan-sweeper.js';
import { startOwnerDeletions } from './events/owner-deletions.js';
import { startTextExtraction } from './events/text-extraction.js';
import { loadAttachmentSettings } from './settings.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const attachmentMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/** Files of documents (spec 4.7, ARCHITECTURE 5.9): records here, bytes in the object store. */
export const attachmentService = defineService({
  name: 'attachment',
  migrations: [membershipMigrations, attachmentMigrations],
  settings: (config) => [loadAttachmentSettings(config.env), loadStorageSettings(config)],
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [
    ({ app, bus }) => app.attachmentMembership.startProjection(bus),
    ({ app, bus, pool, logger }) => startOwnerDeletions(bus, pool, app.attachmentStorage, logger),
    ({ app, bus, pool, logger }) =>
      startTextExtraction(bus, pool, app.attachmentStorage, app.attachmentTextLimits, logger),
  ],
  jobs: [
    ({ app, pool, logger }) => startOrphanSweeper(pool, app.attachmentStorage, app.attachmentSpoolDir, logger),
    ({ app, pool, logger }) =>
      startImportFileSweeper({ pool, storage: app.attachmentStorage, peers: app.attachmentPeers, logger }, logger),
  ],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(attachmentService, config, opts);
