// `npm run restart:rolling`: launches the platform itself (scripts/start.mjs, two replicas of every
// service) on throw-away databases, a private NATS stream, Redis prefix and free ports; drives a
// bounded loopback load through the gateway (mixed reads and writes); meanwhile restarts every
// service's replicas one at a time through the launcher's restart command; then checks that no
// request failed and that no event was lost or doubled. Exit code 1 when anything failed.
//
//   npm run restart:rolling -- [--duration=60] [--connections=50] [--settle=3] [--no-build] [--shared-postgres]
//
// --duration: seconds of load at least (it goes on until the last restart is ready);
// --settle: seconds between one replica being ready and the next restart (the gateway's
// readiness checks run every 2 s: it must see the restarted replica before the other one stops);
// --shared-postgres: use PG_URL's server instead of a private one (scripts/lib/private-postgres.ts:
// the eighteen processes' pools may need more than a default server's 100 connections).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintDevToken } from '@wiki/auth';
import { type Config, loadConfig, SERVICE_NAMES } from '@wiki/config';
import { createDatabasePool, sql } from '@wiki/db';
import { cleanupConfig, freePort, replicaPort, uniqueName } from '@wiki/testing';
import autocannon, { type RequestSpec } from 'autocannon';
import { type PrivatePostgres, startPrivatePostgres } from './lib/private-postgres.js';
import { ReconnectingStream } from './lib/reconnecting-stream.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const settings = {
  durationS: Number(args.duration ?? 60),
  connections: Number(args.connections ?? 50),
  settleMs: Number(args.settle ?? 3) * 1000,
  build: !('no-build' in args),
  privatePostgres: !('shared-postgres' in args),
};
/** The private server's connection limit: above what every pool of the eighteen processes may open. */
const PRIVATE_MAX_CONNECTIONS = 400;
const SEED_DOCUMENTS = 20;

const say = (line: string) => process.stderr.write(`rolling-restart: ${line}\n`);

interface Launcher {
  child: ChildProcess;
  gatewayUrl: string;
  logFile: string;
  restart(part: string): Promise<void>;
  stop(): Promise<void>;
}

/** The run's own environment: nothing it writes is shared with another run or `npm start`. */
async function isolatedEnv(): Promise<Record<string, string>> {
  const name = uniqueName('roll');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DB_PREFIX: name,
    EVENTS_STREAM: name.toUpperCase(),
    EVENTS_PREFIX: name.replace(/_/g, '-'),
    DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)),
    AUTH_PROVIDER: 'dev',
    INTERNAL_API_KEY: randomBytes(24).toString('base64url'),
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    REPLICAS: '2',
  };
  for (const key of ['PG_URL', 'NATS_URL', 'REDIS_URL', 'CHROMIUM_PATH', 'HOME']) {
    if (process.env[key]) env[key] = process.env[key] as string;
  }
  // replicaPort keeps each pick's replica and metrics ports (+100, +1000) free as well.
  const taken = new Set<number>();
  env.PORT = String(await replicaPort(taken));
  for (const service of SERVICE_NAMES) env[`${service.toUpperCase()}_PORT`] = String(await replicaPort(taken));
  return env;
}

type Message = { type: string; part?: string; ready?: boolean; error?: string; parts?: Array<{ name: string }> };

/** Runs scripts/start.mjs with an IPC channel (restart commands), its output to a log file. */
async function launch(env: Record<string, string>): Promise<{ launcher: Launcher; parts: string[] }> {
  const logFile = join(env.DATA_DIR, 'launcher.log');
  const log = createWriteStream(logFile);
  const flags = ['--json', '--timeout=180', ...(settings.build ? [] : ['--no-build'])];
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs'), ...flags], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const waiting = new Map<string, (m: Message) => void>();
  child.on('message', (m: Message) => waiting.get(m.type === 'up' ? 'up' : `restarted:${m.part}`)?.(m));
  const next = (key: string) =>
    new Promise<Message>((done, fail) => {
      const onExit = (code: number | null) => fail(new Error(`the launcher exited (${code}); its log: ${logFile}`));
      child.once('exit', onExit);
      waiting.set(key, (m) => {
        waiting.delete(key);
        child.off('exit', onExit);
        done(m);
      });
    });
  const up = await next('up');
  const launcher: Launcher = {
    child,
    gatewayUrl: `http://127.0.0.1:${env.PORT}`,
    logFile,
    async restart(part) {
      const answered = next(`restarted:${part}`);
      child.send({ type: 'restart', part });
      const answer = await answered;
      if (!answer.ready) throw new Error(`${part} did not restart: ${answer.error}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.disconnect(); // the launcher stops everything it started when its channel closes
      await exited;
    },
  };
  const services = (up.parts ?? []).map((p) => p.name).filter((name) => name !== 'gateway');
  return { launcher, parts: services };
}

/** The JSON API through the gateway, for the seeding and the checks (not the measured load). */
function api(gatewayUrl: string) {
  return async <T = unknown>(method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text).data : undefined) as T;
  };
}

const paragraph = (text: string) => ({
  id: randomBytes(8).toString('hex'),
  type: 'paragraph',
  props: {},
  content: [{ type: 'text', text, styles: {} }],
  children: [],
});

interface Tally {
  requests: Map<string, Map<number, number>>;
  created: Set<string>;
  /** Document id -> the title its last successful update gave it (or its creation). */
  titles: Map<string, string>;
  mentions: number;
}

/**
 * One connection's cycle: read a document, create one, retitle it, comment on a seeded one with a
 * mention of Bob, list Bob's notifications, read the workspace. What succeeded is tallied for the
 * checks (the answers are the only truth the client has).
 */
function requestCycle(f: Fixture, tally: Tally): RequestSpec[] {
  let n = 0;
  const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const count = (kind: string) => (status: number) => {
    const statuses = tally.requests.get(kind) ?? new Map<number, number>();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    tally.requests.set(kind, statuses);
  };
  const seed = () => f.seeds[n % f.seeds.length];
  return [
    {
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: `/api/v1/documents/${seed()}` }),
      headers: { authorization: `Bearer ${f.alice}` },
      onResponse: count('read document'),
    },
    {
      method: 'POST',
      path: '/api/v1/documents',
      headers: json(f.alice),
      setupRequest: (req, context) => {
        const title = `Rolling ${++n}`;
        context.title = title;
        context.documentId = undefined;
        return {
          ...req,
          body: JSON.stringify({ workspaceId: f.workspaceId, parentId: null, title, content: [paragraph(title)] }),
        };
      },
      onResponse: (status, body, context) => {
        count('create document')(status);
        if (status !== 201) return;
        const id = JSON.parse(body).data.id as string;
        context.documentId = id;
        tally.created.add(id);
        tally.titles.set(id, context.title as string);
      },
    },
    {
      method: 'PUT',
      headers: json(f.alice),
      setupRequest: (req, context) => {
        // Retitles what this connection just created; a seeded document when that creation failed.
        const id = (context.documentId as string | undefined) ?? seed();
        const title = `${context.title} retitled`;
        context.retitled = { id, title };
        return { ...req, path: `/api/v1/documents/${id}`, body: JSON.stringify({ title }) };
      },
      onResponse: (status, _body, context) => {
        count('update title')(status);
        const { id, title } = context.retitled as { id: string; title: string };
        if (status === 200 && tally.created.has(id)) tally.titles.set(id, title);
      },
    },
    {
      method: 'POST',
      headers: json(f.alice),
      setupRequest: (req) => ({
        ...req,
        path: `/api/v1/comments/documents/${seed()}/threads`,
        body: JSON.stringify({
          anchor: { blockId: `block-${n}`, startOffset: 0, endOffset: 4, selectedText: 'Seed' },
          comment: { content: `Have a look @[Bob Mentioned](${f.bobId}) (${n})` },
        }),
      }),
      onResponse: (status) => {
        count('comment with a mention')(status);
        if (status === 201) tally.mentions++;
      },
    },
    {
      method: 'GET',
      path: '/api/v1/notifications?size=20',
      headers: { authorization: `Bearer ${f.bob}` },
      onResponse: count('list notifications'),
    },
    {
      method: 'GET',
      path: `/api/v1/workspaces/${f.workspaceId}`,
      headers: { authorization: `Bearer ${f.alice}` },
      onResponse: count('read workspace'),
    },
  ];
}

interface Fixture {
  alice: string;
  bob: string;
  bobId: string;
  workspaceId: string;
  seeds: string[];
}

async function seed(gatewayUrl: string, dataDir: string): Promise<Fixture> {
  const call = api(gatewayUrl);
  const alice = await mintDevToken(dataDir, 'alice@rolling.test', 'Alice Owner');
  const bob = await mintDevToken(dataDir, 'bob@rolling.test', 'Bob Mentioned');
  await call('GET', '/api/v1/users/me', alice);
  const bobId = (await call<{ id: string }>('GET', '/api/v1/users/me', bob)).id;
  const workspaceId = (await call<{ id: string }>('POST', '/api/v1/workspaces', alice, { name: 'Rolling restart' })).id;
  const invited = await call<{ inviteLink: string }>(
    'POST',
    `/api/v1/workspaces/${workspaceId}/members/invite`,
    alice,
    {
      email: 'bob@rolling.test',
      role: 'COMMENTER',
    },
  );
  await call('POST', `/api/v1/invitations/${invited.inviteLink.split('/invite/')[1]}/accept`, bob, {});
  const seeds: string[] = [];
  for (let i = 0; i < SEED_DOCUMENTS; i++) {
    const doc = await call<{ id: string }>('POST', '/api/v1/documents', alice, {
      workspaceId,
      parentId: null,
      title: `Seed ${i}`,
      content: [paragraph(`Seed ${i}`)],
    });
    seeds.push(doc.id);
  }
  return { alice, bob, bobId, workspaceId, seeds };
}

interface Check {
  name: string;
  expected: number;
  actual: number;
  /** Details of a mismatch (ids missing, doubled, with an older title). */
  detail?: string;
}

/**
 * Reads, from each service's own database, what the writes made (the truth: a write whose answer
 * the client never saw, because it gave up waiting or the load stopped, may still have happened)
 * and what the events made of it downstream: every document counted once in the workspace, indexed
 * once with its current title, every comment's mention one notification, each on Bob's stream once.
 */
async function effects(config: Config, f: Fixture, stream: ReconnectingStream): Promise<Check[]> {
  const call = api(`http://127.0.0.1:${config.gatewayPort}`);
  const workspace = await call<{ documentCount: number }>('GET', `/api/v1/workspaces/${f.workspaceId}`, f.alice);
  const read = async <T>(
    service: 'document' | 'search' | 'notification' | 'comment',
    query: ReturnType<typeof sql.unsafe>,
  ) => {
    const pool = await createDatabasePool(config.databaseUrls[service], { maximumPoolSize: 1 });
    try {
      return (await pool.any(query)) as readonly T[];
    } finally {
      await pool.end();
    }
  };
  const documents = await read<{ id: string; title: string }>(
    'document',
    sql.unsafe`SELECT id, title FROM documents WHERE workspace_id = ${f.workspaceId}`,
  );
  const indexed = await read<{ id: string; title: string }>(
    'search',
    sql.unsafe`SELECT id, title FROM search_documents WHERE workspace_id = ${f.workspaceId}`,
  );
  const comments = await read<{ n: number }>(
    'comment',
    sql.unsafe`SELECT count(*)::int AS n FROM comments WHERE content LIKE ${`%(${f.bobId})%`}`,
  );
  const mentions = await read<{ n: number }>(
    'notification',
    sql.unsafe`SELECT count(*)::int AS n FROM notifications WHERE user_id = ${f.bobId} AND type = 'COMMENT_MENTION'`,
  );
  const titles = new Map(indexed.map((row) => [row.id, row.title]));
  const missing = documents.filter((d) => !titles.has(d.id));
  const stale = documents.filter((d) => titles.has(d.id) && titles.get(d.id) !== d.title);
  return [
    {
      name: "workspace's documentCount = documents stored",
      expected: documents.length,
      actual: workspace.documentCount,
    },
    {
      name: 'search index: documents indexed = documents stored',
      expected: documents.length,
      actual: indexed.length,
      detail: missing.length ? `missing ${missing.slice(0, 5).map((d) => d.id)}` : undefined,
    },
    {
      name: 'search index: documents with their current title',
      expected: documents.length,
      actual: documents.length - stale.length,
      detail: stale.length
        ? `stale ${stale.slice(0, 3).map((d) => `${d.id} "${titles.get(d.id)}" not "${d.title}"`)}`
        : undefined,
    },
    { name: 'mention notifications = comments mentioning Bob', expected: comments[0].n, actual: mentions[0].n },
    {
      name: 'mentions seen on Bob’s reconnecting event stream',
      expected: comments[0].n,
      actual: stream.notifications.size,
    },
    { name: 'mentions seen twice on the stream', expected: 0, actual: stream.doubled },
  ];
}

/** The checks, again and again while anything still changes (consumers catching up), at most `capMs`. */
async function settledEffects(config: Config, f: Fixture, stream: ReconnectingStream, capMs: number): Promise<Check[]> {
  const deadline = Date.now() + capMs;
  let last = '';
  let lastChange = Date.now();
  for (;;) {
    const checks = await effects(config, f, stream);
    if (checks.every((c) => c.actual === c.expected)) return checks;
    const now = JSON.stringify(checks);
    if (now !== last) lastChange = Date.now();
    last = now;
    // Nothing moved for 30 s: what is left is not lag.
    if (Date.now() > deadline || Date.now() - lastChange > 30_000) return checks;
    await sleep(2000);
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function main(): Promise<number> {
  const env = await isolatedEnv();
  let postgres: PrivatePostgres | undefined;
  if (settings.privatePostgres) {
    postgres = startPrivatePostgres(await freePort(), PRIVATE_MAX_CONNECTIONS);
    env.PG_URL = postgres.url;
    say(`a private PostgreSQL at ${postgres.url} (max_connections ${PRIVATE_MAX_CONNECTIONS})`);
  }
  const config = loadConfig(env);
  let launcher: Launcher | undefined;
  let stream: ReconnectingStream | undefined;
  let keepLog = false;
  try {
    say(`launching the platform at REPLICAS=2 (database prefix ${env.DB_PREFIX}, gateway :${env.PORT})`);
    const launched = await launch(env);
    launcher = launched.launcher;
    say(`up: ${launched.parts.join(', ')}; launcher log: ${launcher.logFile}`);
    const f = await seed(launcher.gatewayUrl, env.DATA_DIR);
    stream = new ReconnectingStream(`${launcher.gatewayUrl}/api/v1/notifications/stream`, f.bob);
    await stream.opened;

    const tally: Tally = { requests: new Map(), created: new Set(), titles: new Map(), mentions: 0 };
    const started = Date.now();
    const run = autocannon({
      url: launcher.gatewayUrl,
      connections: settings.connections,
      // Stopped by hand below: at least the duration, and until the last restart is ready.
      duration: 3600,
      requests: requestCycle(f, tally),
    });
    say(`load: ${settings.connections} connections; restarting ${launched.parts.length} replicas one at a time`);
    const restarts: Array<{ part: string; seconds: number }> = [];
    await sleep(Math.min(5_000, settings.durationS * 1000));
    for (const part of launched.parts) {
      const t0 = Date.now();
      await launcher.restart(part);
      restarts.push({ part, seconds: Math.round((Date.now() - t0) / 100) / 10 });
      say(`${part} restarted and ready in ${restarts.at(-1)?.seconds} s`);
      await sleep(settings.settleMs);
    }
    const left = settings.durationS * 1000 - (Date.now() - started);
    if (left > 0) await sleep(left);
    (run as unknown as { stop(): void }).stop();
    const result = await run;
    const loadSeconds = Math.round((Date.now() - started) / 1000);

    say('load over; waiting for the events to settle');
    const checks = await settledEffects(config, f, stream, 600_000);
    const stored = (await effects(config, f, stream))[0].expected;

    const byKind = [...tally.requests].map(([kind, statuses]) => ({
      kind,
      requests: [...statuses.values()].reduce((a, b) => a + b, 0),
      statuses: Object.fromEntries(statuses),
    }));
    const unexpected = byKind.reduce(
      (sum, k) => sum + Object.entries(k.statuses).reduce((s, [code, n]) => s + (Number(code) >= 300 ? n : 0), 0),
      0,
    );
    const failed = result.errors + result.timeouts + unexpected;
    const wrong = checks.filter((c) => c.actual !== c.expected);
    const report = {
      date: new Date().toISOString(),
      connections: settings.connections,
      loadSeconds,
      requests: result.requests.total,
      requestsPerSecond: Math.round(result.requests.total / Math.max(1, loadSeconds)),
      failedRequests: failed,
      errors: result.errors,
      timeouts: result.timeouts,
      unexpectedStatuses: unexpected,
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      latencyMaxMs: result.latency.max,
      byKind,
      restarts,
      streamReconnects: stream.reconnects,
      // Creations the client counted as failed (no answer in time, or cut by the end of the load) that still happened.
      documentsStored: stored,
      documentsCreatedAsSeen: f.seeds.length + tally.created.size,
      checks,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    say(
      `${result.requests.total} requests in ${loadSeconds} s, ${failed} failed (${result.errors} errors, ${result.timeouts} timeouts, ${unexpected} unexpected statuses); ${restarts.length} restarts; event checks: ${checks.length - wrong.length}/${checks.length} exact`,
    );
    for (const c of wrong)
      say(`MISMATCH ${c.name}: expected ${c.expected}, got ${c.actual}${c.detail ? ` (${c.detail})` : ''}`);
    keepLog = failed > 0 || wrong.length > 0;
    return keepLog ? 1 : 0;
  } catch (error) {
    keepLog = true;
    throw error;
  } finally {
    stream?.close();
    await launcher?.stop();
    if (keepLog && launcher) {
      // The data folder goes with the cleanup: the launcher's log is kept for a look at what failed.
      const kept = join(tmpdir(), `rolling-restart-${env.DB_PREFIX}.log`);
      copyFileSync(launcher.logFile, kept);
      say(`launcher log kept at ${kept}`);
    }
    await cleanupConfig(config);
    postgres?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`failed: ${(error as Error).stack ?? error}`);
    process.exit(1);
  },
);
