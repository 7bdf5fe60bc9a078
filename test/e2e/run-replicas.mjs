#!/usr/bin/env node
// `npm run test:replicas`: every end-to-end behaviour of issue 19 at two replicas
// (test/e2e/*.replicas.ts). Like `npm test`, it starts PostgreSQL, NATS and Redis when one is
// missing at its default address and builds first (the platform runs from dist/, as `npm start`
// runs it). Extra arguments go to vitest.
import { join } from 'node:path';
import { describeStarted, ensureChromium, ensureLocalServers } from '../../scripts/lib/local-servers.mjs';
import { build, ensureInstalled, fail, note, repoRoot, run } from '../../scripts/lib/prepare.mjs';

try {
  await ensureInstalled();
  await build();
} catch (error) {
  fail(`npm run test:replicas: ${error.message}`);
}
const servers = await ensureLocalServers({ log: note });
for (const line of describeStarted(servers.started)) note(line);
if (servers.down.length) fail(`npm run test:replicas: not reachable:\n\n${servers.down.join('\n\n')}`);
const chromiumProblem = ensureChromium({ log: note });
if (chromiumProblem) note(`warning: ${chromiumProblem}`);

const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const config = join(repoRoot, 'test', 'e2e', 'vitest.replicas.config.ts');
process.exit(
  await run(process.execPath, [vitest, 'run', '--config', config, ...process.argv.slice(2)], { stdout: 'inherit' }),
);
