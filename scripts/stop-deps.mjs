#!/usr/bin/env node
// `npm run stop:deps`: stops the PostgreSQL, NATS and Redis that `npm start` or `npm test` started
// under .data/ (scripts/lib/local-servers.mjs). Servers started any other way are never touched.
import { DEFAULT_DATA_DIR, stopLocalServers } from './lib/local-servers.mjs';
import { fail, note } from './lib/prepare.mjs';

try {
  const stopped = await stopLocalServers({ dataDir: DEFAULT_DATA_DIR });
  note(stopped.length ? `Stopped: ${stopped.join(', ')}` : 'No server started under .data/ is running.');
} catch (error) {
  fail(`npm run stop:deps: ${error.message}`);
}
