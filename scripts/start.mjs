#!/usr/bin/env node
// `npm start`: installs and builds when needed, starts PostgreSQL, NATS and Redis under .data/
// when one is missing at its default address (scripts/lib/local-servers.mjs), checks that they
// answer, then runs every built service and the gateway, prefixes their logs with their names and
// stops them all together.
//
// By default every part runs in ONE child process (scripts/one-process.mjs; ARCHITECTURE 1,
// "Processes are packaging"): each keeps its own port, configuration, database pool, consumers,
// metrics and logs, and they still talk only over HTTP and NATS. `--processes=separate` (or
// PROCESSES=separate), or more than one replica, runs one child process per part and replica.
//
// A process that exits without being asked once everything was up (a crash, an OOM kill, kill -9)
// is started again alone, after a back-off, while the others keep running (in the default mode it
// is the one process, so everything starts again); one that keeps failing at once is given up on,
// and then everything stops (scripts/lib/crash-restarts.mjs and docs/OPERATIONS.md, "Crashes"). A
// process that fails during start-up stops everything at once.
//
//   npm start                 pretty logs on a terminal, pino JSON otherwise
//   npm start -- --json       always the raw pino JSON lines
//   npm start -- --timeout=120  seconds to wait for every part to be ready (default 90)
//   npm start -- --no-build   skip the install and build steps and run what dist/ holds
//   npm start -- --processes=separate (or PROCESSES=separate) one process per part
//   npm start -- --replicas=2 (or REPLICAS=2) two processes of every service, the second on its
//                             port + 100; the gateway spreads requests over them (separate processes)
//   npm start -- --only=workspace,document  only these services (and the gateway)
//
// Started by another Node process with an IPC channel (as scripts/rolling-restart.ts does), it says
// { type: 'up' } once everything is ready, and takes { type: 'restart', part: 'document-2' }: that
// part is stopped gracefully and started again, and { type: 'restarted', part, ready: true } (or
// { type: 'restarted', part, error }) answers once it is ready (an error while that part is being
// restarted after a crash, and in the default mode, where one part cannot restart without the
// others: a rolling restart needs separate processes). When that channel closes, everything stops,
// as on Ctrl-C.
//
// Each process reads the environment itself (ARCHITECTURE 6); PORT is the gateway's only,
// so it is removed from the services' environment, and so is METRICS_PORT: each service replica
// serves /metrics on its own port + 1000. GATEWAY_SERVICES, when unset, becomes the
// list of services started here.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CRASH_RESTART_POLICY, crashRecord } from './lib/crash-restarts.mjs';
import { checkDependencies, isListening } from './lib/dependencies.mjs';
import { describeStarted, ensureChromium, ensureLocalServers } from './lib/local-servers.mjs';
import { createLogPrinter } from './lib/log-lines.mjs';
import { build, buildWeb, ensureInstalled, fail, note, repoRoot } from './lib/prepare.mjs';
import { serviceEnv, serviceNodeFlags } from './lib/service-process.mjs';

const STOP_GRACE_MS = 10_000;
/** How long a part restarted on request may take to stop (its shutdown delay, in-flight work) before it is killed. */
const RESTART_STOP_GRACE_MS = 30_000;
/**
 * With several replicas, how long a stopping service keeps serving after its readiness turned false
 * (SHUTDOWN_DELAY_MS, unless set): longer than the gateway's 2 s readiness checks, so the gateway has
 * stopped choosing it before it closes (docs/OPERATIONS.md, rolling restarts).
 */
const REPLICA_SHUTDOWN_DELAY_MS = '3000';
const LAST_LINES = 40;
/** The name of the one process that runs every part in the default mode. */
const ONE_PROCESS = 'platform';

const options = parseArgs(process.argv.slice(2));

if (options.build) {
  try {
    await ensureInstalled();
    await build();
    await buildWeb();
  } catch (error) {
    fail(`npm start: ${error.message}. Fix the errors above and run npm start again.`);
  }
}

// Imported only now: @wiki/config and @wiki/auth are the compiled libs, which the build above made.
const importBuilt = (name) =>
  import(name).catch((error) =>
    fail(`npm start: cannot load ${name} (${error.code ?? error.message}); run npm start without --no-build.`),
  );
const { ConfigError, SERVICE_NAMES, loadConfig } = await importBuilt('@wiki/config');
// Only the settings reader: the whole library (its Fastify plugin, jose) would add ~19 MiB here.
const { loadAuthSettings } = await importBuilt('@wiki/auth/settings');
// The same for where e-mail goes (the banner says it).
const { describeMailDestination, loadMailSettings } = await importBuilt('@wiki/notification-service/settings');

let config;
let auth;
let mail;
try {
  // Loading it here first also creates the dev secrets in DATA_DIR once, before the children
  // start together and could each make their own.
  config = loadConfig(process.env);
  // The gateway's identity provider (libs/auth): a bad one stops here, before anything starts.
  auth = loadAuthSettings(process.env);
  mail = loadMailSettings(config);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message, 78);
  throw error;
}

const { parts, notStartable } = discoverParts(config, SERVICE_NAMES, options.replicas, options.only);
/** One process per part and replica, or every part in one (the default). */
const separate = options.processes === 'separate' || options.replicas > 1;
note(`Found: ${parts.map((p) => p.name).join(', ') || 'nothing to start'}`);
if (notStartable.length) note(`Not started: ${notStartable.join('; ')}`);
if (!parts.some((p) => p.name === 'gateway')) {
  fail('npm start: gateway/dist/main.js does not exist (the gateway has no src/main.ts yet, or it did not build).');
}
if (!parts.some((p) => p.kind === 'service')) fail('npm start: no service has a dist/main.js: nothing to route to.');

// What is missing at its default address is started here (and keeps running); a server that a
// variable points elsewhere is only reported. Then every database URL is checked as before.
const servers = await ensureLocalServers({ log: note });
for (const line of describeStarted(servers.started)) note(line);
if (parts.some((p) => p.name === 'export')) {
  const chromiumProblem = ensureChromium({ log: note });
  if (chromiumProblem) note(`warning: ${chromiumProblem}`);
}
const unreachable = await checkDependencies(
  config,
  parts.filter((p) => p.kind === 'service' && p.replica === 1).map((p) => p.name),
);
const down = [...servers.down, ...unreachable.filter((message) => !servers.down.some((s) => sameServer(s, message)))];
if (down.length) fail(`npm start: required infrastructure is not reachable:\n\n${down.join('\n\n')}`);

const busy = await busyPorts(parts);
if (busy.length) fail(`npm start: ${busy.join('; ')}. Is another npm start running?`);

/**
 * The child processes: in separate mode each part is its own (the part object is its unit); by
 * default one, `platform`, runs them all.
 */
const units = separate
  ? parts.map((part) => Object.assign(part, { parts: [part] }))
  : [{ name: ONE_PROCESS, kind: 'platform', replica: 1, parts, main: join(repoRoot, 'scripts', 'one-process.mjs') }];
note(
  separate
    ? `Mode: separate processes, one per part${options.replicas > 1 ? ' and replica (REPLICAS above 1)' : ''}.`
    : 'Mode: one process for every part (--processes=separate runs one per part).',
);

const printer = createLogPrinter({
  names: [...parts.map((p) => p.name), ...(separate ? [] : [ONE_PROCESS])],
  pretty: !options.json && process.stdout.isTTY === true,
});
const children = new Map();
let stopping = false;
let started = false;

process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
// A parent that drives this launcher over IPC (restarts one part at a time); its going away stops everything.
if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (message?.type === 'restart') void restartOnRequest(message.part);
  });
  process.once('disconnect', () => {
    if (!stopping) onSignal('SIGTERM');
  });
}
// Last resort when this process exits without stopping them (an exception): no orphans on the ports.
process.on('exit', () => {
  for (const child of children.values()) killGroup(child, 'SIGKILL');
});

// Further replicas start once the first of each is ready: the first has then run the service's
// migrations, which two processes must not run at the same time.
try {
  for (const wave of [units.filter((u) => u.replica === 1), units.filter((u) => u.replica > 1)]) {
    if (stopping) break;
    for (const unit of wave) startUnit(unit);
    await Promise.all(wave.map((unit) => waitUntilReady(unit, options.timeoutMs)));
  }
} catch (error) {
  if (!stopping) await stopAll(1, `${error.message}; stopping everything.`);
}
if (!stopping) {
  started = true;
  note(describeProcesses());
  printBanner(config, auth, parts, mail);
  process.send?.({ type: 'up', parts: parts.map((p) => ({ name: p.name, kind: p.kind, port: p.port })) });
}

// ---------------------------------------------------------------------------------------------

function parseArgs(args) {
  const result = {
    json: false,
    build: true,
    timeoutMs: 90_000,
    replicas: replicasOf(process.env.REPLICAS, 'REPLICAS'),
    processes: processesOf(process.env.PROCESSES, 'PROCESSES'),
    only: undefined,
  };
  for (const arg of args) {
    if (arg === '--json') result.json = true;
    else if (arg.startsWith('--processes='))
      result.processes = processesOf(arg.slice('--processes='.length), '--processes');
    else if (arg.startsWith('--replicas=')) result.replicas = replicasOf(arg.slice('--replicas='.length), '--replicas');
    else if (arg === '--no-build') result.build = false;
    else if (/^--only=[a-z,-]+$/.test(arg)) result.only = arg.slice('--only='.length).split(',').filter(Boolean);
    else if (/^--timeout=\d+$/.test(arg)) result.timeoutMs = Number(arg.split('=')[1]) * 1000;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm start [-- [--json] [--no-build] [--timeout=SECONDS] [--processes=one|separate] [--replicas=N] [--only=a,b]]\n',
      );
      process.exit(0);
    } else fail(`npm start: unknown option ${arg} (try --help)`, 2);
  }
  if (result.processes === 'one' && result.replicas > 1)
    fail('npm start: several replicas run as separate processes; --processes=one cannot have REPLICAS above 1', 2);
  return result;
}

/** `one` or `separate`; undefined when not asked for (one process, unless there are replicas). */
function processesOf(raw, source) {
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'one' && raw !== 'separate') fail(`npm start: ${source} must be one or separate, got "${raw}"`, 2);
  return raw;
}

/** How many processes of each service to run: 1 (the default) to 4. */
function replicasOf(raw, source) {
  if (raw === undefined || raw === '') return 1;
  if (!/^[1-4]$/.test(raw)) fail(`npm start: ${source} must be a whole number from 1 to 4, got "${raw}"`, 2);
  return Number(raw);
}

/** Where replica `replica` of a service whose first replica listens on `port` listens. */
function replicaPort(port, replica) {
  return port + (replica - 1) * 100;
}

/**
 * The parts to run: every services/<name>/dist/main.js (known services in the order of
 * SERVICE_NAMES, workspace first, then any others), `replicas` of each, and the gateway last.
 */
function discoverParts(config, serviceNames, replicas, only) {
  const parts = [];
  const notStartable = [];
  const servicesDir = join(repoRoot, 'services');
  const found = existsSync(servicesDir)
    ? readdirSync(servicesDir).filter((name) => existsSync(join(servicesDir, name, 'package.json')))
    : [];
  const ordered = [
    ...serviceNames.filter((name) => found.includes(name)),
    ...found.filter((name) => !serviceNames.includes(name)).sort(),
  ];
  for (const unknown of only?.filter((name) => !ordered.includes(name)) ?? []) {
    fail(`npm start: --only names ${unknown}, which is not a service here`, 2);
  }
  for (const name of ordered) {
    if (only && !only.includes(name)) continue;
    const dir = join(servicesDir, name);
    if (!existsSync(join(dir, 'dist', 'main.js'))) {
      notStartable.push(
        existsSync(join(dir, 'src', 'main.ts'))
          ? `services/${name} (src/main.ts did not build to dist/main.js)`
          : `services/${name} (no src/main.ts yet)`,
      );
      continue;
    }
    const port = config.ports[name] ?? portFromEnv(`${name.toUpperCase()}_PORT`);
    if (port === undefined) {
      notStartable.push(`services/${name} (unknown port: set ${name.toUpperCase()}_PORT or add it to libs/config)`);
      continue;
    }
    for (let replica = 1; replica <= replicas; replica++) {
      parts.push({
        name: replica === 1 ? name : `${name}-${replica}`,
        service: name,
        replica,
        kind: 'service',
        main: join(dir, 'dist', 'main.js'),
        module: join(dir, 'dist', 'part.js'),
        port: replicaPort(port, replica),
        readyPaths: ['/health/ready'],
      });
    }
  }
  if (existsSync(join(repoRoot, 'gateway', 'dist', 'main.js'))) {
    parts.push({
      name: 'gateway',
      kind: 'gateway',
      replica: 1,
      main: join(repoRoot, 'gateway', 'dist', 'main.js'),
      module: join(repoRoot, 'gateway', 'dist', 'part.js'),
      port: config.gatewayPort,
      // /actuator/health is the public health route of the spec; used when /health/ready is absent.
      readyPaths: ['/health/ready', '/actuator/health'],
    });
  }
  for (const part of parts) {
    if (part.port === 0)
      fail(`npm start: ${part.name} has port 0; give it a fixed port so its readiness can be checked.`);
    // A further replica's port (port + 100) must not be another part's.
    const clash = part.replica > 1 && parts.find((other) => other !== part && other.port === part.port);
    if (clash) fail(`npm start: ${part.name} and ${clash.name} would both listen on port ${part.port}.`);
  }
  return { parts, notStartable };
}

/** Whether two "X is not reachable at URL (VARIABLE)" messages are about the same server. */
function sameServer(a, b) {
  const key = (message) =>
    message
      .match(/^\s*(\S+) is not reachable at .*?\((\w+)\)/)
      ?.slice(1)
      .join(' ');
  return key(a) !== undefined && key(a) === key(b);
}

function portFromEnv(variable) {
  const raw = process.env[variable];
  return raw && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Where to reach the children: HOST when it names one address, else loopback. */
function probeHost() {
  const host = process.env.HOST;
  if (!host || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function busyPorts(parts) {
  const results = await Promise.all(
    parts.map(async (part) => ((await isListening(probeHost().replace(/^\[|\]$/g, ''), part.port)) ? part : undefined)),
  );
  return results.filter(Boolean).map((part) => `port ${part.port} (${part.name}) is already in use`);
}

/** A part's environment, as its own process gets it in separate mode (and as its env object in the one process). */
function partEnv(part) {
  const env = { ...serviceEnv, ...process.env };
  // Services that call the gateway (the collab server) find it where this start put it.
  if (part.kind !== 'gateway' && !env.GATEWAY_URL) env.GATEWAY_URL = config.gatewayUrl;
  if (part.kind !== 'gateway') delete env.PORT;
  // Links in invitations and e-mails default to the gateway's public port, which PORT no longer tells a service.
  if (part.kind !== 'gateway' && !env.INVITE_URL) env.INVITE_URL = `http://localhost:${config.gatewayPort}`;
  // One METRICS_PORT cannot serve every part: a service replica takes its own port + 1000.
  if (part.kind !== 'gateway') delete env.METRICS_PORT;
  if (part.kind === 'service' && options.replicas > 1 && env.SHUTDOWN_DELAY_MS === undefined)
    env.SHUTDOWN_DELAY_MS = REPLICA_SHUTDOWN_DELAY_MS;
  // A further replica listens on its own port (the first one's stays the service's URL for the others).
  if (part.kind === 'service' && part.replica > 1) env[`${part.service.toUpperCase()}_PORT`] = String(part.port);
  // Every part, the gateway and the services alike (their calls to each other spread too), gets
  // all the replicas of a service whose URL the environment does not set.
  for (const service of new Set(parts.filter((p) => p.replica > 1 && config.urls[p.service]).map((p) => p.service))) {
    const variable = `${service.toUpperCase()}_URL`;
    if (env[variable]) continue;
    env[variable] = parts
      .filter((p) => p.service === service)
      .map((p) => {
        const url = new URL(config.urls[service]);
        url.port = String(p.port);
        return url.origin;
      })
      .join(',');
  }
  // On one machine only the gateway faces the network; the services listen on loopback
  // (where the gateway reaches them) unless HOST says otherwise.
  if (part.kind !== 'gateway' && !env.HOST) env.HOST = '127.0.0.1';
  // The gateway's /actuator/health reports the services it expects: the ones started here.
  if (part.kind === 'gateway' && !env.GATEWAY_SERVICES) env.GATEWAY_SERVICES = expectedByGateway().join(',');
  return env;
}

/**
 * The one process's environment: this process's (with serviceEnv), and in NPM_START_PARTS each
 * part with how its own environment differs from it (scripts/one-process.mjs builds each part's
 * env object from that; none is written to the shared process.env).
 */
function oneProcessEnv(unitParts) {
  const base = { ...serviceEnv, ...process.env };
  const listed = unitParts.map((part) => {
    const own = partEnv(part);
    return {
      name: part.name,
      module: part.module,
      set: Object.fromEntries(Object.entries(own).filter(([key, value]) => base[key] !== value)),
      unset: Object.keys(base).filter((key) => !(key in own)),
    };
  });
  return { ...base, NPM_START_PARTS: JSON.stringify(listed) };
}

/** Starts a unit's child process: a part of its own (separate mode) or the one process of every part. */
function startUnit(unit) {
  const env = unit.kind === 'platform' ? oneProcessEnv(unit.parts) : partEnv(unit);
  const child = spawn(process.execPath, [...serviceNodeFlags, unit.main], {
    cwd: repoRoot,
    env,
    // The IPC channel is how a child notices that this script is gone: when it closes (this
    // process exited or was killed, even with SIGKILL), the child stops itself gracefully
    // (stopWithLauncher in @wiki/http), so no part is left running on its port.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Own process group: a Ctrl-C on the terminal reaches only this script, which then
    // stops every child exactly once (a second signal would cut their graceful stop short).
    detached: true,
  });
  unit.lastLines = [];
  unit.child = child;
  unit.exited = undefined;
  unit.readyAt = undefined;
  children.set(unit.name, child);
  const remember = (line) => {
    unit.lastLines.push(line);
    if (unit.lastLines.length > LAST_LINES) unit.lastLines.shift();
  };
  // The one process's lines are told apart by the part that wrote them (the `service` of its pino line).
  const route = unit.kind === 'platform' ? { nameOf: partOfLine } : {};
  printer.attach(unit.name, child.stdout, remember, route);
  printer.attach(unit.name, child.stderr, remember, route);
  child.on('error', (error) => {
    note(`${unit.name}: could not start: ${error.message}`);
  });
  child.on('exit', (code, signal) => {
    if (children.get(unit.name) === child) children.delete(unit.name);
    unit.exited = { code, signal };
    if (stopping || unit.restarting) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (started) return restartAfterCrash(unit, child, how);
    void stopAll(1, `${unit.name} ${how} during start-up; stopping the others.${lastLinesOf(unit)}`);
  });
}

/** The part a log line of the one process is from: its pino `service`, when that names a part here. */
function partOfLine(line) {
  const name = /^\{[^{}]*?"service":"([a-z0-9-]+)"/.exec(line)?.[1];
  return name !== undefined && parts.some((p) => p.name === name) ? name : undefined;
}

function lastLinesOf(unit) {
  return unit.lastLines.length ? `\nIts last log lines:\n${unit.lastLines.join('\n')}\n` : '';
}

/**
 * A process exited unasked after start-up: whatever it left in its process group (a browser it
 * started) is killed, and it is started again after its back-off, or given up on.
 */
function restartAfterCrash(unit, child, how) {
  killGroup(child, 'SIGKILL');
  unit.crashes ??= crashRecord();
  // How long it served: a process slow to start on a busy machine has not run stably for that.
  const next = unit.crashes.exited(Date.now(), unit.readyAt === undefined ? 0 : Date.now() - unit.readyAt);
  if (next.giveUp) {
    const within = Math.round(CRASH_RESTART_POLICY.giveUpWithinMs / 60_000);
    void stopAll(
      1,
      `npm start: GIVING UP on ${unit.name}: it ${how}, ${next.failures} failures within ${within} min. ` +
        `Stopping the others: the platform is not whole without it (docs/OPERATIONS.md, "Crashes").${lastLinesOf(unit)}`,
    );
    return;
  }
  unit.recovering = true;
  note(`${unit.name} ${how}; restarting in ${next.delayMs / 1000} s (attempt ${next.attempt}).`);
  unit.backOff = setTimeout(() => void recover(unit, next.attempt), next.delayMs);
}

/**
 * Starts a crashed process again and says so once it is ready. One that does not get ready in time
 * is killed, which counts as its next failure; one that exits again is handled by its exit handler.
 */
async function recover(unit, attempt) {
  unit.backOff = undefined;
  if (stopping) return;
  startUnit(unit);
  const child = unit.child;
  note(`${unit.name}: starting again (attempt ${attempt}, pid ${child.pid}).`);
  try {
    await waitUntilReady(unit, options.timeoutMs);
  } catch (error) {
    if (stopping || unit.exited || unit.child !== child) return;
    note(`${error.message}; killing it.`);
    killGroup(child, 'SIGKILL');
    return;
  }
  if (stopping || unit.exited || unit.child !== child) return;
  unit.recovering = false;
  note(`${unit.name}: back up and ready after attempt ${attempt}.`);
}

/**
 * Stops one part gracefully (SIGTERM: readiness off, the shutdown delay, in-flight work finished),
 * starts it again on the same port and answers the parent once it is ready. One restart at a time
 * per part; a part that does not come back stops everything, as at start-up. Only in separate mode:
 * in the one process a part cannot stop and start again without the others, and a rolling restart
 * is for replicas, which always run apart (docs/DECISIONS.md, "One process by default").
 */
async function restartOnRequest(name) {
  const part = parts.find((p) => p.name === name);
  const answer = (fields) => process.send?.({ type: 'restarted', part: name, ...fields });
  if (!started || stopping) return answer({ error: 'the platform is not up' });
  if (part?.kind !== 'service') return answer({ error: `no service part named ${name}` });
  if (!separate) {
    return answer({
      error: `every part runs in one process: restarting ${name} alone needs --processes=separate (or REPLICAS above 1)`,
    });
  }
  if (part.restarting) return answer({ error: `${name} is already restarting` });
  // Its crash restart is under way: a second start now would race it for the port.
  if (part.recovering) return answer({ error: `${name} is being restarted after a crash` });
  part.restarting = true;
  try {
    const child = part.child;
    const exited = new Promise((resolvePromise) =>
      child.exitCode !== null || child.signalCode !== null ? resolvePromise() : child.once('exit', resolvePromise),
    );
    note(`${name}: restarting (stopping gracefully)`);
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => {
      note(`${name}: still running after ${RESTART_STOP_GRACE_MS / 1000} s; killing.`);
      killGroup(child, 'SIGKILL');
    }, RESTART_STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    if (stopping) return answer({ error: 'stopping' });
    startUnit(part);
    await waitUntilReady(part, options.timeoutMs);
    if (part.exited) throw new Error(`${name} exited while starting again`);
    note(`${name}: restarted and ready`);
    answer({ ready: true });
  } catch (error) {
    answer({ error: error.message });
    void stopAll(1, `${name} did not come back after a restart (${error.message}); stopping the others.`);
  } finally {
    part.restarting = false;
  }
}

/** The started services (all answer /health/ready over HTTP, the collab server beside its WebSocket). */
function expectedByGateway() {
  return parts
    .filter((p) => p.kind === 'service' && p.replica === 1 && SERVICE_NAMES.includes(p.service))
    .map((p) => p.service);
}

/** Which processes run which parts, with their pids (the e2e tests read this line). */
function describeProcesses() {
  if (!separate) {
    return `Processes: 1 (pid ${units[0].child?.pid}: ${parts.map((p) => p.name).join(', ')})`;
  }
  return `Processes: ${units.length} (${units.map((u) => `${u.name} pid ${u.child?.pid}`).join(', ')})`;
}

/** Waits until every part the unit runs answers its readiness path. */
async function waitUntilReady(unit, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(unit.parts.map((part) => waitUntilPartReady(unit, part, deadline, timeoutMs)));
  if (!unit.exited && !stopping) unit.readyAt = Date.now();
}

async function waitUntilPartReady(unit, part, deadline, timeoutMs) {
  let last = 'no answer yet';
  while (!stopping) {
    if (unit.exited) return; // reported by the exit handler
    for (const path of part.readyPaths) {
      try {
        const response = await fetch(`http://${probeHost()}:${part.port}${path}`, {
          signal: AbortSignal.timeout(2000),
        });
        if (response.ok) return;
        last = `${path} answered ${response.status} ${(await response.text()).slice(0, 300)}`;
        if (response.status !== 404) break;
      } catch (error) {
        last = error.cause?.code ?? error.message;
        break;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`${part.name} was not ready after ${timeoutMs / 1000} s (${last})`);
    }
    await sleep(300);
  }
}

/** How a person signs in to the web app with this identity provider (ARCHITECTURE 5.17). */
function webSignInLines(url, auth) {
  if (auth.provider === 'dev') return [`  Sign in   open ${url}/ and sign in with any e-mail address (dev sign-in)`];
  if (auth.provider === 'oidc') {
    return [
      `  Sign in   open ${url}/: it sends you to ${auth.issuer} to sign in`,
      `            (its client ${auth.clientId ?? '(AUTH_CLIENT_ID unset: the web app cannot sign in)'} must be public,`,
      `            allow the redirect ${url}/auth/callback and the post-logout redirect ${url}/)`,
    ];
  }
  return [`  Sign in   the web app signs in with AUTH_PROVIDER=dev or oidc, not ${auth.provider}`];
}

function printBanner(config, auth, parts, mail) {
  const url = `http://localhost:${config.gatewayPort}`;
  const lines = [
    '',
    `Wiki platform is up: ${parts.map((p) => `${p.name} :${p.port}`).join(', ')}`,
    `  Web app   ${url}/`,
    ...webSignInLines(url, auth),
    `  Gateway   ${url}/api/v1`,
    `  API docs  ${url}/docs-ui`,
  ];
  if (parts.some((p) => p.service === 'notification')) lines.push(`  E-mail    ${describeMailDestination(mail)}`);
  if (auth.provider === 'dev') {
    lines.push(
      '  Token     npm run token -- alice@example.com [name]',
      '  Try       TOKEN=$(npm run -s token -- alice@example.com)',
      `            curl -H "Authorization: Bearer $TOKEN" ${url}/api/v1/workspaces`,
    );
  } else {
    lines.push(
      `  Token     AUTH_PROVIDER=${auth.provider}: use an access token from your identity provider`,
      `  Try       curl -H "Authorization: Bearer $TOKEN" ${url}/api/v1/workspaces`,
    );
  }
  lines.push('Ctrl-C stops everything.', '');
  process.stdout.write(`${lines.join('\n')}\n`);
}

function onSignal(signal) {
  if (stopping) {
    note(`${signal} again: killing everything now.`);
    for (const child of children.values()) killGroup(child, 'SIGKILL');
    process.exit(130);
  }
  void stopAll(0, `${signal}: stopping ${[...children.keys()].join(', ') || 'nothing'} (Ctrl-C again to kill).`);
}

async function stopAll(exitCode, message) {
  if (stopping) return;
  stopping = true;
  // A process waiting out its back-off stays down.
  for (const unit of units) clearTimeout(unit.backOff);
  note(`\n${message}`);
  const waiting = [...children.values()].map(
    (child) =>
      new Promise((resolvePromise) =>
        child.exitCode !== null || child.signalCode !== null ? resolvePromise() : child.once('exit', resolvePromise),
      ),
  );
  for (const child of children.values()) killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => {
    note(`Still running after ${STOP_GRACE_MS / 1000} s: ${[...children.keys()].join(', ')}; killing.`);
    for (const child of children.values()) killGroup(child, 'SIGKILL');
  }, STOP_GRACE_MS);
  await Promise.all(waiting);
  clearTimeout(timer);
  await printer.flush();
  process.exit(exitCode);
}

/** Signals the child's whole process group (a service may have children of its own, e.g. Chromium). */
function killGroup(child, signal) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function sleep(ms) {
  return new Promise((resolvePromise) => setTimeout(resolvePromise, ms));
}
