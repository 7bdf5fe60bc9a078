// Brings up PostgreSQL, NATS (JetStream) and Redis for `npm start` and `npm test` when one is not
// answering at its default address: from the installed binaries (on Debian, as root, installed
// with apt first), with data and logs under .data/. A server whose variable (PG_URL, NATS_URL,
// REDIS_URL) points elsewhere is never started or touched, only reported. The servers keep running
// after the command that started them; `npm run stop:deps` (stopLocalServers) stops them.
// Plain JavaScript with Node built-ins only: it runs before anything is installed or built.
import { spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { checkNats, checkPostgres, checkRedis, isListening } from './dependencies.mjs';
import { repoRoot } from './prepare.mjs';

/** Where each server is expected when its variable is unset: the defaults of libs/config. */
export const DEFAULT_URLS = {
  PG_URL: 'postgres://postgres@127.0.0.1:5432',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

export const DEFAULT_DATA_DIR = join(repoRoot, '.data');

const READY_TIMEOUT_MS = 30_000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

// Each server's folder under the data folder.
const FOLDERS = { postgres: 'postgres', nats: 'nats', redis: 'redis' };

const SERVERS = [
  {
    name: 'PostgreSQL',
    variable: 'PG_URL',
    defaultPort: 5432,
    folder: FOLDERS.postgres,
    check: checkPostgres,
    start: startPostgres,
  },
  { name: 'NATS', variable: 'NATS_URL', defaultPort: 4222, folder: FOLDERS.nats, check: checkNats, start: startNats },
  {
    name: 'Redis',
    variable: 'REDIS_URL',
    defaultPort: 6379,
    folder: FOLDERS.redis,
    check: checkRedis,
    start: startRedis,
  },
];

function endpoint(url, defaultPort) {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || defaultPort) };
}

function sameAddress(a, b) {
  const host = (name) => (LOOPBACK.has(name) ? 'loopback' : name);
  return a.port === b.port && host(a.host) === host(b.host);
}

function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * Makes PostgreSQL, NATS and Redis answer where the platform looks for them.
 *
 * - `env`: where the variables are read (default process.env);
 * - `defaults`: the default URL of each variable (tests use free ports);
 * - `dataDir`: the parent of postgres/, nats/ and redis/ (default .data/);
 * - `install`: allow `apt-get install` of a missing server (only used on Debian as root);
 * - `log`: progress lines.
 *
 * Resolves with `started` (what was started here, with how to stop it) and `down` (one message per
 * server that still does not answer, with how to fix it). Never throws for a server that fails to
 * start: that is reported in `down`.
 */
export async function ensureLocalServers({
  env = process.env,
  defaults = DEFAULT_URLS,
  dataDir = DEFAULT_DATA_DIR,
  install = true,
  log = () => {},
} = {}) {
  const started = [];
  const down = [];
  for (const server of SERVERS) {
    const url = env[server.variable] || defaults[server.variable];
    const target = endpoint(url, server.defaultPort);
    // A PostgreSQL URL may name a Unix socket (?host=): not a TCP address, so never one of ours.
    if (!target.host) continue;
    const problem = await answerProblem(server, target, url);
    if (!problem) continue;
    const where = `${server.name} is not reachable at ${redact(url)} (${server.variable}): ${problem}`;
    if (!sameAddress(target, endpoint(defaults[server.variable], server.defaultPort))) {
      down.push(
        [
          `  ${where}`,
          `  ${server.variable} points away from the default ${redact(defaults[server.variable])}, so it is not started here.`,
          `  Start it there, or unset ${server.variable} to have a local one started under ${shortPath(dataDir)}/.`,
        ].join('\n'),
      );
      continue;
    }
    if (await isListening(target.host, target.port)) {
      down.push(`  ${where}\n  Something else holds port ${target.port}; stop it or set ${server.variable}.`);
      continue;
    }
    try {
      log(
        `${server.name} does not answer at ${redact(url)}: starting a local one (data in ${shortPath(join(dataDir, server.folder))}/)`,
      );
      // Redis binds addresses only, so a loopback name is started on 127.0.0.1.
      const host = LOOPBACK.has(target.host) && target.host !== '::1' ? '127.0.0.1' : target.host;
      const info = await server.start({
        host,
        port: target.port,
        dataDir,
        dir: join(dataDir, server.folder),
        install,
        log,
      });
      await waitUntil(
        () => {
          // A server that ended at once (a bad flag, a locked folder) says so in its log.
          if (info.exited?.()) {
            throw Object.assign(new Error(`it exited at start-up (see ${shortPath(info.logFile)})`), { final: true });
          }
          return server.check(target);
        },
        `${server.name} did not answer within ${READY_TIMEOUT_MS / 1000} s (see ${shortPath(info.logFile)})`,
      );
      started.push({ name: server.name, variable: server.variable, url, ...info });
    } catch (error) {
      // Installing a server package may have started the distribution's own server there.
      if (!(await answerProblem(server, target, url))) {
        log(`${server.name} answers at ${redact(url)} now: installing its package started it`);
        continue;
      }
      down.push(`  ${where}\n  Starting a local one failed: ${error.message}`);
    }
  }
  return { started, down };
}

/** Where Debian's fonts-noto-cjk puts its fonts: without them Chinese, Japanese and Korean print as boxes. */
const CJK_FONTS_DIR = '/usr/share/fonts/opentype/noto';

/**
 * The browser the export worker prints PDFs with (CHROMIUM_PATH, else Debian's `chromium`), with
 * fonts for Chinese, Japanese and Korean: on Debian as root, installed with apt when missing. Never
 * throws: answers a warning instead (the rest of the system runs; PDF exports fail until it is there).
 */
export function ensureChromium({ env = process.env, install = true, log = () => {} } = {}) {
  const configured = env.CHROMIUM_PATH;
  if (configured)
    return existsSync(configured) ? null : `CHROMIUM_PATH=${configured} does not exist: PDF exports will fail`;
  try {
    binary(() => (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : onPath('chromium')), 'chromium', {
      install,
      log,
    });
  } catch (error) {
    return `Chromium for PDF exports: ${error.message}; PDF exports will fail until it is there (or CHROMIUM_PATH is set)`;
  }
  try {
    binary(() => (existsSync(CJK_FONTS_DIR) ? CJK_FONTS_DIR : undefined), 'fonts-noto-cjk', { install, log });
  } catch (error) {
    return `CJK fonts for PDF exports: ${error.message}; Chinese, Japanese and Korean text will not print`;
  }
  return null;
}

/**
 * Command-line tools the tests read exports with (`pdftotext` and friends, `unzip`): on Debian as
 * root, installed with apt when missing. Answers one warning per tool still missing.
 */
export function ensureTestTools({ install = true, log = () => {} } = {}) {
  const tools = [
    ['pdftotext', 'poppler-utils'],
    ['unzip', 'unzip'],
  ];
  const problems = [];
  for (const [command, pkg] of tools) {
    try {
      binary(() => onPath(command), pkg, { install, log });
    } catch (error) {
      problems.push(`${command}: ${error.message}`);
    }
  }
  return problems;
}

async function answerProblem(server, target, url) {
  try {
    await server.check(target, url.startsWith('rediss:'));
    return undefined;
  } catch (error) {
    return error.code ?? error.message;
  }
}

async function waitUntil(check, message) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (error.final) throw error;
      if (Date.now() > deadline) throw new Error(message);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
    }
  }
}

/** Lines saying what `ensureLocalServers` started and how to stop it. */
export function describeStarted(started) {
  if (started.length === 0) return [];
  return [
    `Started here (they keep running; stop them with: npm run stop:deps):`,
    ...started.map(
      (s) => `  ${s.name.padEnd(10)} ${redact(s.url)}  data ${shortPath(s.dir)}/  log ${shortPath(s.logFile)}`,
    ),
    'Or one by one:',
    ...started.map((s) => `  ${s.stopCommand}`),
  ];
}

function shortPath(path) {
  const inRepo = relative(repoRoot, path);
  return inRepo && !inRepo.startsWith('..') ? inRepo : path;
}

// --- binaries and packages ------------------------------------------------------------------

const isRoot = () => process.getuid?.() === 0;
const isDebian = () => existsSync('/etc/debian_version');

function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** PostgreSQL's server binaries: on PATH, else Debian's /usr/lib/postgresql/<newest>/bin. */
function postgresBin(command) {
  const found = onPath(command);
  if (found) return found;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', command)))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin', command) : undefined;
}

let aptUpdated = false;

/** Finds a binary; on Debian as root installs `pkg` with apt when it is missing. */
function binary(find, pkg, { install, log }) {
  const found = find();
  if (found) return found;
  if (!(install && isRoot() && isDebian())) {
    throw new Error(`it is not installed (install the ${pkg} package${isDebian() ? `: apt-get install ${pkg}` : ''})`);
  }
  const apt = (args) => {
    log(`apt-get ${args.join(' ')}`);
    const result = spawnSync('apt-get', args, {
      stdio: ['ignore', process.stderr, process.stderr],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args[0]} failed (exit code ${result.status})`);
  };
  if (!aptUpdated) {
    apt(['update', '-qq']);
    aptUpdated = true;
  }
  apt(['install', '-y', '-qq', '--no-install-recommends', pkg]);
  const installed = find();
  if (!installed) throw new Error(`apt-get installed ${pkg} but its binary was not found`);
  return installed;
}

/** Runs a command to completion; rejects with its output when it fails. */
function runQuietly(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`${[command, ...args].join(' ')} failed (exit code ${result.status}): ${output}`);
  }
}

/** Starts a server that does not daemonize itself: own session, no pipes, not waited for. */
function startDetached(command, args) {
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

// --- PostgreSQL -----------------------------------------------------------------------------

// PostgreSQL refuses to run as root: then its commands run as the `postgres` user (which the
// Debian package creates), and its data folder belongs to that user.
function asPostgresUser(command, args) {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function startPostgres({ host, port, dataDir, dir, install, log }) {
  const options = { install, log };
  const initdb = binary(() => postgresBin('initdb'), 'postgresql', options);
  const pgCtl = binary(() => postgresBin('pg_ctl'), 'postgresql', options);
  const logFile = join(dataDir, 'postgres.log');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(logFile)) writeFileSync(logFile, '');
  if (isRoot()) {
    // The postgres user must be able to reach its folder through dataDir.
    const mode = statSync(dataDir).mode;
    if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o777) | 0o001);
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
    chownSync(logFile, uid, gid);
    const reach = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-w', dir], { stdio: 'ignore' });
    if (reach.status !== 0) {
      throw new Error(
        `the postgres user cannot reach ${dir} (a folder above it is closed to others); open it or set PG_URL`,
      );
    }
  }
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    log(`initdb ${shortPath(dir)} (superuser postgres, trust authentication on this machine)`);
    // Trust, like the default PG_URL (no password): the server listens on loopback only.
    runQuietly(
      ...asPostgresUser(initdb, ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']),
      {
        cwd: dataDir,
      },
    );
    // No Unix socket: the platform connects over TCP, and the packaged default folder
    // (/var/run/postgresql) is not writable for everyone.
    writeFileSync(
      join(dir, 'postgresql.conf'),
      `${readFileSync(join(dir, 'postgresql.conf'), 'utf8')}\nunix_socket_directories = ''\n`,
    );
  }
  const [command, args] = asPostgresUser(pgCtl, [
    '-D',
    dir,
    '-l',
    logFile,
    '-o',
    `-h ${host} -p ${port}`,
    '-w',
    '-t',
    '30',
    'start',
  ]);
  runQuietly(command, args, { cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = asPostgresUser(pgCtl, ['-D', shortPath(dir), '-m', 'fast', 'stop']);
  return { dir, logFile, stopCommand: [stop[0], ...stop[1]].join(' ') };
}

function postgresUser() {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('there is no postgres user to run it as (install the postgresql package)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

// --- NATS -----------------------------------------------------------------------------------

async function startNats({ host, port, dir, install, log }) {
  const natsServer = binary(() => onPath('nats-server') ?? existing('/usr/sbin/nats-server'), 'nats-server', {
    install,
    log,
  });
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, 'nats-server.log');
  const pidFile = join(dir, 'nats-server.pid');
  const child = startDetached(natsServer, [
    '-a',
    host,
    '-p',
    String(port),
    '-js',
    '-sd',
    dir,
    '-P',
    pidFile,
    '-l',
    logFile,
  ]);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  return { dir, logFile, pidFile, stopCommand: `kill $(cat ${shortPath(pidFile)})`, exited: () => exited };
}

function existing(path) {
  return existsSync(path) ? path : undefined;
}

// --- Redis ----------------------------------------------------------------------------------

async function startRedis({ host, port, dir, install, log }) {
  const redisServer = binary(() => onPath('redis-server') ?? existing('/usr/bin/redis-server'), 'redis-server', {
    install,
    log,
  });
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, 'redis-server.log');
  const pidFile = join(dir, 'redis-server.pid');
  // --daemonize: Redis detaches itself and writes the pid file.
  runQuietly(redisServer, [
    '--bind',
    host,
    '--port',
    String(port),
    '--dir',
    dir,
    '--daemonize',
    'yes',
    '--pidfile',
    pidFile,
    '--logfile',
    logFile,
  ]);
  return { dir, logFile, pidFile, stopCommand: `kill $(cat ${shortPath(pidFile)})` };
}

// --- stopping -------------------------------------------------------------------------------

function pidOf(pidFile, expected) {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // A stale file may name a pid that now belongs to something else.
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(expected)) return undefined;
  } catch {
    if (existsSync('/proc/self')) return undefined; // no such process
  }
  return pid;
}

async function waitForExit(pid) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  }
  throw new Error(`process ${pid} still runs after ${READY_TIMEOUT_MS / 1000} s`);
}

/**
 * Stops the servers started under `dataDir` (only those: it goes by their pid files and
 * PostgreSQL's data folder, never by port). Resolves with one line per server stopped.
 */
export async function stopLocalServers({ dataDir = DEFAULT_DATA_DIR } = {}) {
  const stopped = [];
  const pgDir = join(dataDir, FOLDERS.postgres);
  if (existsSync(join(pgDir, 'postmaster.pid'))) {
    const pgCtl = postgresBin('pg_ctl');
    if (!pgCtl) throw new Error('pg_ctl not found: cannot stop PostgreSQL');
    // A postmaster.pid left by a crash: `pg_ctl status` says no server runs (exit code 3).
    const [statusCommand, statusArgs] = asPostgresUser(pgCtl, ['-D', pgDir, 'status']);
    if (spawnSync(statusCommand, statusArgs, { cwd: dataDir, stdio: 'ignore' }).status === 0) {
      runQuietly(...asPostgresUser(pgCtl, ['-D', pgDir, '-m', 'fast', '-w', 'stop']), { cwd: dataDir });
      stopped.push(`PostgreSQL (${shortPath(pgDir)})`);
    }
  }
  for (const [name, folder, binaryName] of [
    ['NATS', FOLDERS.nats, 'nats-server'],
    ['Redis', FOLDERS.redis, 'redis-server'],
  ]) {
    const pid = pidOf(join(dataDir, folder, `${binaryName}.pid`), binaryName);
    if (pid === undefined) continue;
    process.kill(pid, 'SIGTERM');
    await waitForExit(pid);
    stopped.push(`${name} (pid ${pid})`);
  }
  return stopped;
}
