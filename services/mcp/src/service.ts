import type { Config } from '@wiki/config';
import { defineService, type RunningService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { loadMcpSettings } from './settings.js';

export type RunningMcp = RunningService;

/**
 * The MCP service (ARCHITECTURE 5.12). It owns no database (ARCHITECTURE 1): the kit opens the app
 * and NATS, which carries SSE messages to the replica holding their stream. On the way down its
 * streams end before HTTP drains (the app's preClose), then routing stops and NATS closes.
 */
export const mcpService = defineService({
  name: 'mcp',
  database: false,
  settings: (config) => loadMcpSettings(config.env),
  buildApp: ({ config, checks, logLevel }) => buildApp(config, { checks, logLevel }),
  consumers: [
    async ({ app, bus }) => {
      app.mcpSessions.attach(bus.nc);
      // Hears of this replica's sessions a newer one of the same key, elsewhere, pushed out.
      app.mcpSessionLimit.attach(bus.nc);
      return { stop: () => app.mcpSessions.detach() };
    },
  ],
});

export const startService = (config: Config, opts?: StartOptions): Promise<RunningMcp> =>
  startWithKit(mcpService, config, opts);
