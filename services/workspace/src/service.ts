import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { defineService, type StartOptions, startService as startWithKit } from '@wiki/service';
import { buildApp } from './app.js';
import { startDocumentCountConsumer } from './events/document-count.js';
import { loadWorkspaceSettings } from './settings.js';

export { type AppDeps, buildApp } from './app.js';

/** Users, workspaces, members, invitations and MCP keys; counts documents from document.* events. */
export const workspaceService = defineService({
  name: 'workspace',
  // src/ and dist/ both sit beside migrations/.
  migrations: [{ dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'pgmigrations' }],
  settings: loadWorkspaceSettings,
  buildApp: ({ config, pool, checks, logLevel }) => buildApp(config, { pool, checks, logLevel }),
  consumers: [({ bus, pool, logger }) => startDocumentCountConsumer({ bus, pool, logger })],
});

export const startService = (config: Config, opts?: StartOptions) => startWithKit(workspaceService, config, opts);
