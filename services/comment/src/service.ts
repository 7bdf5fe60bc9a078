import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations, startUsersProjection, usersProjectionMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { startDocumentProjection } from './events/document-projection.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const commentMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/** Comment threads and comments; projections of memberships, documents and users. */
export const commentService = defineService({
  name: 'comment',
  migrations: [membershipMigrations, usersProjectionMigrations, commentMigrations],
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [
    ({ app, bus }) => app.commentMembership.startProjection(bus),
    ({ bus, pool, logger }) => startDocumentProjection(bus, pool, logger),
    ({ bus, pool, logger }) => startUsersProjection({ bus, pool, logger, service: 'comment' }),
  ],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(commentService, config, opts);
