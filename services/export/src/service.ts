import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations } from '@wiki/projections';
import {
  defineService,
  type RuntimeKit,
  type ServiceDefinition,
  type StartOptions,
  startService as startWithKit,
} from '@wiki/service';
import { loadStorageSettings } from '@wiki/storage';
import { buildApp, queuePrefixOf } from './app.js';
import { startExpiredFileSweeper } from './files/expired-files.js';
import { startJobFileSweeper } from './files/expired-job-files.js';
import { startOrphanUploadSweeper } from './files/orphan-uploads.js';
import { startExportWorker } from './queue/worker.js';
import { type ExportSettings, hasApi, hasWorker, loadExportSettings } from './settings.js';

/** The service's own migrations, the jobs table (src/ and dist/ both sit beside migrations/). */
export const exportMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/**
 * The export service (ARCHITECTURE 5.10): the API role checks the caller against the membership
 * projection (its only table) and queues a job; the worker role renders. One definition for both,
 * chosen by EXPORT_ROLE, so each half scales on its own. Its settings are read from the
 * configuration's environment (`overrides` on top, for tests); the role decides at start which
 * consumers and jobs run.
 */
export function exportService(overrides: Partial<ExportSettings> = {}): ServiceDefinition {
  const settingsOf = (config: Config): ExportSettings => ({ ...loadExportSettings(config.env), ...overrides });
  return defineService({
    name: 'export',
    migrations: [membershipMigrations, exportMigrations],
    poolSize: 4,
    // Read before anything opens (runServiceMain): a bad value stops the part with exit 78.
    settings: (config) => ({ export: settingsOf(config), storage: loadStorageSettings(config) }),
    buildApp: ({ config, pool, checks, logLevel }) =>
      buildApp(config, { pool, checks, logLevel, settings: settingsOf(config) }),
    consumers: [
      async ({ app, bus }) => (hasApi(app.exportSettings.role) ? app.exportMembership.startProjection(bus) : []),
    ],
    jobs: [
      async ({ config, app, logger, pool }: RuntimeKit) =>
        hasWorker(app.exportSettings.role)
          ? startExportWorker({
              config,
              settings: app.exportSettings,
              prefix: queuePrefixOf(config, app.exportSettings),
              logger,
              storage: app.exportStorage,
              pool,
            })
          : [],
      ({ pool, app, logger }: RuntimeKit) =>
        startJobFileSweeper(pool, app.exportStorage, app.exportSettings.sweepIntervalMs, logger),
      ({ pool, app, logger }: RuntimeKit) =>
        startOrphanUploadSweeper(pool, app.exportStorage, app.exportSettings.sweepIntervalMs, logger),
      // Either role may sweep the files nobody collected; one replica at a time does.
      ({ pool, app, logger }: RuntimeKit) =>
        startExpiredFileSweeper(
          pool,
          app.exportStorage,
          { ttlMs: app.exportSettings.fileTtlMs, intervalMs: app.exportSettings.sweepIntervalMs },
          logger,
        ),
    ],
  });
}

export interface ExportStartOptions extends StartOptions {
  settings?: Partial<ExportSettings>;
}

export const startService = (config: Config, opts: ExportStartOptions = {}) =>
  startWithKit(exportService(opts.settings), config, opts);

/** The definition `main.ts` runs and `npm run migrate` reads (its migrations do not depend on the role). */
export const exportServiceDefinition = exportService();
