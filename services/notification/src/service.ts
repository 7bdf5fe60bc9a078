import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { membershipMigrations, startUsersProjection, usersProjectionMigrations } from '@wiki/projections';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { SWEEP_INTERVAL_MS, startExpirySweeper } from './events/expiry-sweeper.js';
import { startNotificationProducer } from './events/producers.js';
import { loadNotificationSettings } from './settings.js';

/** The service's own migrations (src/ and dist/ both sit beside migrations/). */
export const notificationMigrations = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations',
};

/** Notifications made from events (ARCHITECTURE 5.6); memberships and user names from projections. */
export const notificationService = defineService({
  name: 'notification',
  migrations: [membershipMigrations, usersProjectionMigrations, notificationMigrations],
  settings: (config) => loadNotificationSettings(config.env),
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [
    // First: the producer below tells streams through it from its first event on.
    async ({ app, bus }) => app.notificationStreams.connect(bus),
    // Streams of this replica that a newer one of the same user, on another replica, pushes out.
    async ({ app, bus }) => {
      app.notificationStreamLimit.attach(bus.nc);
      return { stop: async () => undefined };
    },
    ({ app, bus }) => app.notificationMembership.startProjection(bus),
    ({ bus, pool, logger }) => startUsersProjection({ bus, pool, logger, service: 'notification' }),
    ({ app, bus, pool, logger }) =>
      startNotificationProducer(bus, pool, {
        peers: app.notificationPeers,
        logger,
        notify: (userIds) => app.notificationStreams.notify(userIds),
      }),
  ],
  jobs: [
    ({ app, pool, logger }) =>
      startExpirySweeper(pool, logger, SWEEP_INTERVAL_MS, (userIds) => app.notificationStreams.notify(userIds)),
  ],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(notificationService, config, opts);
