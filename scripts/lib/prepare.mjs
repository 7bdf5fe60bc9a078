// Shared by the root scripts (start, run-ts, test): install dependencies when they are
// missing or stale, and build with `tsc -b`. Plain JavaScript with Node built-ins only,
// because it runs before anything is installed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const npmCommand = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Writes a progress line to stderr (stdout stays clean for scripts like `npm run -s token`). */
export function note(message) {
  process.stderr.write(`${message}\n`);
}

/**
 * Runs a command in the repository root and resolves with its exit code.
 * Its stdout goes to our stderr unless told otherwise, for the same reason as `note`.
 */
export function run(command, args, { stdout = 'stderr', env = process.env, cwd = repoRoot } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['inherit', stdout === 'stderr' ? process.stderr : 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 128 : 1)));
  });
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Why dependencies must be installed, or undefined when they are fine. npm writes
 * node_modules/.package-lock.json on every install, so its age tells whether the
 * installed tree is older than package-lock.json.
 */
export function installReason() {
  const lock = mtime(join(repoRoot, 'package-lock.json'));
  const installed =
    mtime(join(repoRoot, 'node_modules', '.package-lock.json')) ?? mtime(join(repoRoot, 'node_modules'));
  if (installed === undefined) return 'node_modules is missing';
  if (!existsSync(join(repoRoot, 'node_modules', 'typescript'))) return 'node_modules has no typescript';
  if (lock !== undefined && lock > installed) return 'package-lock.json is newer than node_modules';
  return undefined;
}

/** Installs dependencies when needed: `npm ci` on a fresh clone, `npm install` to catch up. */
export async function ensureInstalled() {
  const reason = installReason();
  if (!reason) return;
  const hasLock = existsSync(join(repoRoot, 'package-lock.json'));
  const fresh = !existsSync(join(repoRoot, 'node_modules'));
  const args = hasLock && fresh ? ['ci'] : ['install'];
  note(`> npm ${args.join(' ')}   (${reason})`);
  const code = await run(npmCommand, [...args, '--no-audit', '--no-fund']);
  if (code !== 0) throw new Error(`npm ${args[0]} failed with exit code ${code}`);
}

const tscBin = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

/** `tsc -b` over the given projects (default: the root tsconfig.json, i.e. everything). */
export async function build(projects = []) {
  note(`> tsc -b ${projects.join(' ')}`.trimEnd());
  const code = await run(process.execPath, [tscBin, '-b', ...projects]);
  if (code !== 0) throw new Error(`tsc -b failed with exit code ${code}`);
}

const webRoot = join(repoRoot, 'web');

/** The newest modification time of a file under `path` (node_modules and dist left out). */
function newestMtime(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Why the browser app (web/, ARCHITECTURE 5.17) must be built again, or undefined when dist/ is current. */
export function webBuildReason() {
  const built = mtime(join(webRoot, 'dist', 'index.html'));
  if (built === undefined) return 'web/dist does not exist';
  if (newestMtime(webRoot) > built) return 'web/ changed since its last build';
  return undefined;
}

/** Type-checks and bundles the browser app with Vite when its sources changed since the last build. */
export async function buildWeb() {
  const reason = webBuildReason();
  if (!reason) return;
  note(`> npm run build -w web   (${reason})`);
  // Through npm: web/ has its own Vite (vitest keeps another at the root), found on its .bin path.
  const code = await run(npmCommand, ['run', 'build', '-w', 'web']);
  if (code !== 0) throw new Error(`the web app's build (tsc + vite) failed with exit code ${code}`);
}

/** The folders under libs/ that are TypeScript projects. */
export function libProjects() {
  const libs = join(repoRoot, 'libs');
  return readdirSync(libs)
    .filter((name) => existsSync(join(libs, name, 'tsconfig.json')))
    .sort()
    .map((name) => `libs/${name}`);
}

/** Prints an error and exits: for failures that are the user's environment, not a bug. */
export function fail(message, code = 1) {
  process.stderr.write(`\n${message}\n`);
  process.exit(code);
}
