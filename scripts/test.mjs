#!/usr/bin/env node
// `npm test`: starts PostgreSQL, NATS and Redis under .data/ when one is missing at its default
// address (as `npm start` does), type-checks (the build, then the tests and scripts), lints and checks the format
// (Biome), checks the deployment manifests, then runs every vitest project (unit + integration against the real
// PostgreSQL/NATS/Redis of the environment). Extra arguments go to vitest:
// `npm test -- services/workspace`. Every phase runs even when an earlier one failed.
// Ends with one line "N passed, M failed[, K skipped]"; each failed check before vitest
// (a type-check, the linter, the manifests) counts as one failure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStarted, ensureChromium, ensureLocalServers, ensureTestTools } from './lib/local-servers.mjs';
import { buildWeb, ensureInstalled, fail, note, repoRoot, run } from './lib/prepare.mjs';

const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const biome = join(repoRoot, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

try {
  await ensureInstalled();
} catch (error) {
  fail(`npm test: ${error.message}`);
}

const failedPhases = [];
async function phase(title, command, args) {
  note(`\n> ${title}`);
  const code = await run(command, args, { stdout: 'inherit' });
  if (code !== 0) failedPhases.push(`${title} (exit code ${code})`);
  return code;
}

// The integration tests need PostgreSQL, NATS and Redis: what is missing at its default address
// is started (and keeps running), the same way as for `npm start`.
note('\n> PostgreSQL, NATS, Redis');
const servers = await ensureLocalServers({ log: note });
for (const line of describeStarted(servers.started)) note(line);
if (servers.down.length) {
  note(`Not reachable:\n\n${servers.down.join('\n\n')}`);
  failedPhases.push('PostgreSQL, NATS, Redis (not reachable)');
} else note('All three answer.');

// The export tests print PDFs with Chromium and read PDFs and Word files back.
note('\n> Chromium, fonts, pdftotext, unzip');
const toolProblems = [ensureChromium({ log: note }), ...ensureTestTools({ log: note })].filter(Boolean);
if (toolProblems.length) note(`Missing (the export tests will fail):\n  ${toolProblems.join('\n  ')}`);
else note('All there.');

await phase('tsc -b', process.execPath, [tsc, '-b']);
// The browser tests (web/test) drive the built app that the gateway serves.
note('\n> web app (tsc + vite build)');
await buildWeb().catch((error) => {
  note(error.message);
  failedPhases.push('web app build');
});
await phase('tsc -p tsconfig.tests.json', process.execPath, [tsc, '-p', 'tsconfig.tests.json']);
await phase('biome check (lint + format)', process.execPath, [biome, 'check', '.']);
await phase('deploy manifests', process.execPath, [join(repoRoot, 'scripts', 'check-manifests.mjs')]);
const failedChecks = failedPhases.length;

const outDir = mkdtempSync(join(tmpdir(), 'wiki-test-'));
const report = join(outDir, 'vitest.json');
const vitestCode = await phase('vitest run', process.execPath, [
  vitest,
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);

const counts = readCounts(report);
rmSync(outDir, { recursive: true, force: true });
if (!counts && vitestCode !== 0) failedPhases.push('vitest wrote no report');
// vitest also fails on errors outside any test (an unhandled rejection): one more failure then.
const vitestOnlyErrors = vitestCode !== 0 && !(counts?.failed > 0) ? 1 : 0;

const passed = counts?.passed ?? 0;
const failed = (counts?.failed ?? 0) + failedChecks + vitestOnlyErrors;
const skipped = counts?.skipped ?? 0;

if (failedPhases.length) note(`\nFailed: ${failedPhases.join('; ')}`);
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failedPhases.length || failed ? 1 : 0);

/**
 * Test counts from vitest's JSON report. A test file that fails before any test runs (an
 * import error, a failing beforeAll) counts as one failure, since it has no failed test of its own.
 */
function readCounts(path) {
  let data;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const brokenFiles = (data.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  return {
    passed: data.numPassedTests ?? 0,
    failed: (data.numFailedTests ?? 0) + brokenFiles,
    skipped: (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0),
  };
}
