import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations, startUsersProjection, usersProjectionMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp, documentContextOf } from './app.js';
import { startDocumentConsumers } from './events/consumers.js';
import { startRevisionRetention } from './events/revision-retention.js';
import { loadDocumentSettings } from './settings.js';

export { buildApp, documentContextOf } from './app.js';

/** Documents, tree, publishing and the internal collab API; projections of members, users and threads. */
export const documentService = defineService({
  name: 'document',
  // src/ and dist/ both sit beside migrations/.
  migrations: [
    membershipMigrations,
    usersProjectionMigrations,
    { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'pgmigrations' },
  ],
  settings: (config) => loadDocumentSettings(config.env),
  poolSize: 20,
  buildApp: ({ config, pool, wakeRelay, checks, logLevel }) => buildApp(config, { pool, wakeRelay, checks, logLevel }),
  consumers: [
    ({ app, bus }) => documentContextOf(app).membership.startProjection(bus),
    ({ bus, pool, logger }) => startUsersProjection({ bus, pool, logger, service: 'document' }),
    ({ bus, pool, logger }) => startDocumentConsumers({ bus, pool, logger }),
  ],
  jobs: [
    ({ app, pool, logger }) => startRevisionRetention(pool, documentContextOf(app).settings.revisions.keepDays, logger),
  ],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(documentService, config, opts);
