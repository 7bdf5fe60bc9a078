import type { Config } from '@wiki/config';
import { defineService, type RunningService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import type { CollabServer } from './collab-server.js';
import { subscribeToEvents } from './events.js';
import { Replication } from './replication.js';
import { loadCollabSettings } from './settings.js';

export { COLLAB_PATH, TOO_MANY_UPDATES } from './app.js';

export interface RunningCollab extends RunningService {
  server: CollabServer;
}

/**
 * The collaboration server (ARCHITECTURE 5.13). It owns no database: the kit opens the app and
 * NATS, over which replicas share their rooms and every replica hears the events that change who
 * may edit what. Both stop after HTTP has drained, i.e. after every room was stored (app.ts).
 */
export const collabService = defineService({
  name: 'collab',
  database: false,
  settings: (config) => loadCollabSettings(config.env),
  buildApp: ({ config, checks, logLevel }) => buildApp(config, { checks, logLevel }),
  consumers: [
    async ({ app, bus, config }) => {
      const server = app.collabServer;
      const replication = new Replication(
        bus.nc,
        config.eventsPrefix,
        (id, message) => server.fromReplica(id, message),
        (id) => server.copyOf(id),
      );
      server.replication = replication;
      return { stop: async () => replication.close() };
    },
    async ({ app, bus, config, logger }) => subscribeToEvents(bus.nc, config.eventsPrefix, app.collabServer, logger),
  ],
});

export async function startService(config: Config, opts?: StartOptions): Promise<RunningCollab> {
  const running = await startWithKit(collabService, config, opts);
  return { ...running, server: running.app.collabServer };
}
