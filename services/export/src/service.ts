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
import { startExportWorker } from './queue/worker.js';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings, hasApi, hasWorker, loadExportSettings } from './settings.js';

/**
 * The export service (ARCHITECTURE 5.10): the API role checks the caller against the membership
 * projection (its only table) and queues a job; the worker role renders. One definition for both,
 * chosen by EXPORT_ROLE, so each half scales on its own.
 */
export function exportService(settings: ExportSettings = DEFAULT_EXPORT_SETTINGS): ServiceDefinition {
  return defineService({
    name: 'export',
    migrations: [membershipMigrations],
    poolSize: 4,
    // Its own settings are read before the definition is made (main.ts); the object store's here.
    settings: loadStorageSettings,
    buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel, settings }),
    consumers: hasApi(settings.role) ? [({ app, bus }) => app.exportMembership.startProjection(bus)] : [],
    jobs: [
      ...(hasWorker(settings.role)
        ? [
            ({ config, app, logger }: RuntimeKit) =>
              startExportWorker({
                config,
                settings,
                prefix: queuePrefixOf(config, settings),
                logger,
                storage: app.exportStorage,
              }),
          ]
        : []),
      // Either role may sweep the files nobody collected; one replica at a time does.
      ({ pool, app, logger }: RuntimeKit) =>
        startExpiredFileSweeper(
          pool,
          app.exportStorage,
          { ttlMs: settings.fileTtlMs, intervalMs: settings.sweepIntervalMs },
          logger,
        ),
    ],
  });
}

export interface ExportStartOptions extends StartOptions {
  settings?: Partial<ExportSettings>;
}

export const startService = (config: Config, opts: ExportStartOptions = {}) =>
  startWithKit(exportService({ ...loadExportSettings(config.env), ...opts.settings }), config, opts);

/** The default definition, for `npm run migrate` (its migrations do not depend on the role). */
export const exportServiceDefinition = exportService();
