#!/usr/bin/env node
// `npm run fuzz`: the gateway fuzzer of test/fuzz for a long run. FUZZ_RUNS requests (default
// 20000; `npm test` runs 600), FUZZ_SEED picks the sequence (default: a new one each run, printed
// first so that a failure can be replayed with the same FUZZ_SEED and FUZZ_RUNS).
// Extra arguments go to vitest.
import { join } from 'node:path';
import { ensureChromium } from './lib/local-servers.mjs';
import { ensureInstalled, fail, note, repoRoot, run } from './lib/prepare.mjs';

try {
  await ensureInstalled();
} catch (error) {
  fail(`npm run fuzz: ${error.message}`);
}

// PDF exports are among the routes it drives: without Chromium they answer 503, which the fuzzer
// counts as a failure, so Chromium is installed here as `npm test` does.
const chromiumProblem = ensureChromium({ log: note });
if (chromiumProblem) fail(`npm run fuzz: ${chromiumProblem}`);

const runs = process.env.FUZZ_RUNS || '20000';
const seed = process.env.FUZZ_SEED || String(Math.floor(Math.random() * 2 ** 31));
note(`fuzz: ${runs} runs, seed ${seed} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);

const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const code = await run(
  process.execPath,
  [vitest, 'run', '--project', 'integration', 'test/fuzz', ...process.argv.slice(2)],
  { stdout: 'inherit', env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed } },
);
process.exit(code);
