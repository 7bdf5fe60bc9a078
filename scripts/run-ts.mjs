#!/usr/bin/env node
// Runs a TypeScript file of the repo with tsx: `node scripts/run-ts.mjs <file.ts> [args...]`.
// First makes sure dependencies are installed and the libs are built, because the scripts
// import @wiki/* packages, whose entry points are their compiled dist/ folders.
// Progress goes to stderr so that `$(npm run -s token -- alice@example.com)` captures only the token.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, ensureInstalled, fail, libProjects, note, run } from './lib/prepare.mjs';

const [file, ...args] = process.argv.slice(2);
if (!file) fail('usage: node scripts/run-ts.mjs <file.ts> [args...]', 2);
const path = resolve(process.cwd(), file);
if (!existsSync(path)) fail(`run-ts: ${file} does not exist`, 2);

try {
  await ensureInstalled();
} catch (error) {
  fail(`run-ts: ${error.message}`);
}
try {
  // Only the libs: a service that does not compile yet must not stop `npm run token`.
  await build(libProjects());
} catch (error) {
  // A lib with a type error still emits what compiles; go on with what dist/ has and let
  // the script fail on its own if something it needs is missing.
  note(`run-ts: ${error.message}; running ${file} with the last successful build`);
}

const code = await run(process.execPath, ['--import', 'tsx', path, ...args], { stdout: 'inherit' });
process.exit(code);
