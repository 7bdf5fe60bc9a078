#!/usr/bin/env node
// `npm start`: installs and builds when needed, starts PostgreSQL, NATS and Redis under .data/
// when one is missing at its default address (scripts/lib/local-servers.mjs), checks that they
// answer, then runs every built service and the gateway as child processes, prefixes their logs with
// their names and stops them all together.
//
// A part that exits without being asked once everything was up (a crash, an OOM kill, kill -9) is
// started again alone, after a back-off, while the others keep running; one that keeps failing
// at once is given up on, and then everything stops (scripts/lib/crash-restarts.mjs and
// docs/OPERATIONS.md, "Crashes"). A part that fails during start-up stops everything at once.
//
//   npm start                 pretty logs on a terminal, pino JSON otherwise
//   npm start -- --json       always the raw pino JSON lines
//   npm start -- --timeout=120  seconds to wait for every part to be ready (default 90)
//   npm start -- --no-build   skip the install and build steps and run what dist/ holds
//   npm start -- --replicas=2 (or REPLICAS=2) two processes of every service, the second on its
//                             port + 100; the gateway spreads requests over them
//   npm start -- --only=workspace,document  only these services (and the gateway)
//
// Started by another Node process with an IPC channel (as scripts/rolling-restart.ts does), it says
// { type: 'up' } once everything is ready, and takes { type: 'restart', part: 'document-2' }: that
// part is stopped gracefully and started again, and { type: 'restarted', part, ready: true } (or
// { type: 'restarted', part, error }) answers once it is ready (an error while that part is being
// restarted after a crash). When that channel closes, everything stops, as on Ctrl-C.
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
const { loadAuthSettings } = await importBuilt('@wiki/auth');

let config;
let auth;
try {
  // Loading it here first also creates the dev secrets in DATA_DIR once, before the children
  // start together and could each make their own.
  config = loadConfig(process.env);
  // The gateway's identity provider (libs/auth): a bad one stops here, before anything starts.
  auth = loadAuthSettings(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message, 78);
  throw error;
}

const { parts, notStartable } = discoverParts(config, SERVICE_NAMES, options.replicas, options.only);
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

const printer = createLogPrinter({
  names: parts.map((p) => p.name),
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
  for (const wave of [parts.filter((p) => p.replica === 1), parts.filter((p) => p.replica > 1)]) {
    if (stopping) break;
    for (const part of wave) startPart(part);
    await Promise.all(wave.map((part) => waitUntilReady(part, options.timeoutMs)));
  }
} catch (error) {
  if (!stopping) await stopAll(1, `${error.message}; stopping everything.`);
}
if (!stopping) {
  started = true;
  printBanner(config, auth, parts);
  process.send?.({ type: 'up', parts: parts.map((p) => ({ name: p.name, kind: p.kind, port: p.port })) });
}

// ---------------------------------------------------------------------------------------------

function parseArgs(args) {
  const result = {
    json: false,
    build: true,
    timeoutMs: 90_000,
    replicas: replicasOf(process.env.REPLICAS, 'REPLICAS'),
    only: undefined,
  };
  for (const arg of args) {
    if (arg === '--json') result.json = true;
    else if (arg.startsWith('--replicas=')) result.replicas = replicasOf(arg.slice('--replicas='.length), '--replicas');
    else if (arg === '--no-build') result.build = false;
    else if (/^--only=[a-z,-]+$/.test(arg)) result.only = arg.slice('--only='.length).split(',').filter(Boolean);
    else if (/^--timeout=\d+$/.test(arg)) result.timeoutMs = Number(arg.split('=')[1]) * 1000;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm start [-- [--json] [--no-build] [--timeout=SECONDS] [--replicas=N] [--only=a,b]]\n',
      );
      process.exit(0);
    } else fail(`npm start: unknown option ${arg} (try --help)`, 2);
  }
  return result;
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

function startPart(part) {
  const env = { ...serviceEnv, ...process.env };
  // Services that call the gateway (the collab server) find it where this start put it.
  if (part.kind !== 'gateway' && !env.GATEWAY_URL) env.GATEWAY_URL = config.gatewayUrl;
  if (part.kind !== 'gateway') delete env.PORT;
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
  const child = spawn(process.execPath, [...serviceNodeFlags, part.main], {
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
  part.lastLines = [];
  part.child = child;
  part.exited = undefined;
  part.readyAt = undefined;
  children.set(part.name, child);
  const remember = (line) => {
    part.lastLines.push(line);
    if (part.lastLines.length > LAST_LINES) part.lastLines.shift();
  };
  printer.attach(part.name, child.stdout, remember);
  printer.attach(part.name, child.stderr, remember);
  child.on('error', (error) => {
    note(`${part.name}: could not start: ${error.message}`);
  });
  child.on('exit', (code, signal) => {
    if (children.get(part.name) === child) children.delete(part.name);
    part.exited = { code, signal };
    if (stopping || part.restarting) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (started) return restartAfterCrash(part, child, how);
    void stopAll(1, `${part.name} ${how} during start-up; stopping the others.${lastLinesOf(part)}`);
  });
}

function lastLinesOf(part) {
  return part.lastLines.length ? `\nIts last log lines:\n${part.lastLines.join('\n')}\n` : '';
}

/**
 * A part exited unasked after start-up: whatever it left in its process group (a browser it
 * started) is killed, and it is started again after its back-off, or given up on.
 */
function restartAfterCrash(part, child, how) {
  killGroup(child, 'SIGKILL');
  part.crashes ??= crashRecord();
  // How long it served: a part slow to start on a busy machine has not run stably for that.
  const next = part.crashes.exited(Date.now(), part.readyAt === undefined ? 0 : Date.now() - part.readyAt);
  if (next.giveUp) {
    const within = Math.round(CRASH_RESTART_POLICY.giveUpWithinMs / 60_000);
    void stopAll(
      1,
      `npm start: GIVING UP on ${part.name}: it ${how}, ${next.failures} failures within ${within} min. ` +
        `Stopping the others: the platform is not whole without it (docs/OPERATIONS.md, "Crashes").${lastLinesOf(part)}`,
    );
    return;
  }
  part.recovering = true;
  note(`${part.name} ${how}; restarting in ${next.delayMs / 1000} s (attempt ${next.attempt}).`);
  part.backOff = setTimeout(() => void recover(part, next.attempt), next.delayMs);
}

/**
 * Starts a crashed part again and says so once it is ready. One that does not get ready in time is
 * killed, which counts as its next failure; one that exits again is handled by its exit handler.
 */
async function recover(part, attempt) {
  part.backOff = undefined;
  if (stopping) return;
  startPart(part);
  const child = part.child;
  note(`${part.name}: starting again (attempt ${attempt}, pid ${child.pid}).`);
  try {
    await waitUntilReady(part, options.timeoutMs);
  } catch (error) {
    if (stopping || part.exited || part.child !== child) return;
    note(`${error.message}; killing it.`);
    killGroup(child, 'SIGKILL');
    return;
  }
  if (stopping || part.exited || part.child !== child) return;
  part.recovering = false;
  note(`${part.name}: back up and ready after attempt ${attempt}.`);
}

/**
 * Stops one part gracefully (SIGTERM: readiness off, the shutdown delay, in-flight work finished),
 * starts it again on the same port and answers the parent once it is ready. One restart at a time
 * per part; a part that does not come back stops everything, as at start-up.
 */
async function restartOnRequest(name) {
  const part = parts.find((p) => p.name === name);
  const answer = (fields) => process.send?.({ type: 'restarted', part: name, ...fields });
  if (!started || stopping) return answer({ error: 'the platform is not up' });
  if (part?.kind !== 'service') return answer({ error: `no service part named ${name}` });
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
    startPart(part);
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

async function waitUntilReady(part, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (!stopping) {
    if (part.exited) return; // reported by the exit handler
    for (const path of part.readyPaths) {
      try {
        const response = await fetch(`http://${probeHost()}:${part.port}${path}`, {
          signal: AbortSignal.timeout(2000),
        });
        if (response.ok) {
          part.readyAt = Date.now();
          return;
        }
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

function printBanner(config, auth, parts) {
  const url = `http://localhost:${config.gatewayPort}`;
  const lines = [
    '',
    `Wiki platform is up: ${parts.map((p) => `${p.name} :${p.port}`).join(', ')}`,
    `  Web app   ${url}/`,
    ...webSignInLines(url, auth),
    `  Gateway   ${url}/api/v1`,
    `  API docs  ${url}/docs-ui`,
  ];
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
  // A part waiting out its back-off stays down.
  for (const part of parts) clearTimeout(part.backOff);
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
