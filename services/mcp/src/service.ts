import type { Config } from '@wiki/config';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';

/**
 * The MCP service keeps nothing of its own: its database holds only the kit's event tables (the
 * runner needs one), and NATS carries SSE messages to the replica that holds their stream.
 */
export const mcpService = defineService({
  name: 'mcp',
  migrations: [],
  poolSize: 2,
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [({ app, bus }) => app.mcpSessions.attach(bus.nc)],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(mcpService, config, opts);
