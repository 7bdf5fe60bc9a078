// `npm run bench`: the document service's and the search service's load scenarios through the real
// gateway, beside a bare Fastify hello-world, with results in bench/results/<date>.json (the search
// rows in <date>-search.json) and docs/PERFORMANCE.md.
//
//   npm run bench -- [--duration=10] [--connections=10] [--roots=100] [--per-root=99] [--seed-concurrency=32]
//                    [--create-connections=32,64,128] [--read-rounds=3]
//                    [--search-documents=100000] [--search-fresh-documents=10000] [--lag-rate=25] [--lag-duration=20]
//                    [--only=hello,read,read-service,tree,create,notification,search,attachment,export,collab,mcp,history,web,footprint]
//                    [--processes=separate|one] [--export-requests=30] [--export-seconds=15] [--export-clients=8]
//                    [--streams=1000] [--mention-rate=20] [--mention-duration=20]
//
// `--only=search` runs the search rows alone (their own hello-world included); so does `--only=attachment`.
// `--only=collab` runs the collaboration rows (documents × editors typing through /collab: fan-out and memory;
// --collab-documents=100 --collab-editors=5 --collab-rate=2 --collab-duration=20).
// `--only=mcp` runs the MCP rows (tools/list and a wikiGetDocument call over Streamable HTTP at 10 and 50
// connections beside hello-world; an SDK client's connect + list + call time over both transports).
// `--only=endpoints` runs every hot endpoint at 10 and 50 connections (--endpoint-connections=10,50), each beside a
// hello-world at the same count, with shares, p50/p99, CPU per request per part and the 50-over-10 scaling (issue 18);
// `--endpoints=roots,children` runs only those rows (names in bench/lib/endpoints.ts ENDPOINT_KEYS), and
// `--roots=1 --per-root=0` skips seeding the 10,000 documents when neither the read nor the tree row is wanted; the
// search, notification and attachment services start for the endpoint rows on them (search, notifications,
// notification-count, download).
// `--only=orphan-sweep` sweeps stores of 10,000 and 100,000 attachment objects (local and S3) and records memory.
// `--only=attachment` also times the service's text extraction on a text PDF (--extraction-pages=100
// --extraction-runs=5): pages per second and the worker's memory.
// `--only=export` runs the export rows (a ten-page document as PDF, Word and Markdown; PDFs at 1 and 2 workers).
// `--only=import,tree-export` runs issue 32's job rows: a zip of --import-files=1000 Markdown files imported into a new
// workspace, then that workspace exported as a tree in each of --tree-export-formats=markdown,pdf; documents per second
// from the POST until the job is done, and the export worker's peak RSS. `tree-export` alone still imports (unreported).
// `--only=footprint` runs the whole platform with `npm start --no-build`, in its default mode (one process) and with
// --processes=separate, and reads the RSS of everything under the launcher after start and after a short load.
// `--processes=one` starts the parts the chosen rows need in one Node process, as `npm start` does by default
// (scripts/one-process.mjs); CPU and RSS are then the whole process's. Not with the history and export rows, which
// restart or add a part while they run. The default, `separate`, runs each part as its own process.
// `--only=outbound` runs issue 31's rows: e-mails per second through the queue to an SMTP server on loopback
// (--outbound-messages=1000 mentions), webhook deliveries per second to a receiver answering in 100 ms
// (--outbound-deliveries=500 documents), and title edits at 10 and 50 connections without and with 20 webhooks.
// `--only=history` runs the document history rows (title edits with history on and off, at 10 and 50 connections,
// --history-rounds=3; a page of 1,000 revisions, a 2,000-block diff, restores); the document service restarts per mode.
//
// Every part runs as its own process from its compiled dist/ (built first), on throw-away
// databases (DB_PREFIX bench_<random>), a private NATS stream and free ports; all removed after.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { freemem, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintDevToken, mintIdentityToken } from '@wiki/auth';
import { loadConfig } from '@wiki/config';
import { cleanupConfig } from '@wiki/testing';
import { serviceEnv, serviceNodeFlags } from '../scripts/lib/service-process.mjs';
import {
  ATTACHMENT_FILE_BYTES,
  type AttachmentBenchReport,
  benchAttachments,
  writeAttachmentReport,
} from './lib/attachment.js';
import { benchCollab, type CollabBenchReport, writeCollabReport } from './lib/collab.js';
import { endpointTable, measureEndpoints, servicesOfEndpoints } from './lib/endpoints.js';
import { benchExport, type ExportBenchReport, writeExportReport } from './lib/export.js';
import { benchExtraction } from './lib/extraction.js';
import { benchFootprint, writeFootprintReport } from './lib/footprint.js';
import { benchHistory, writeHistoryReport } from './lib/history.js';
import { benchJobs, type JobsBenchReport, writeJobsReport } from './lib/jobs.js';
import { type CpuMeter, type LoadResult, load } from './lib/load.js';
import { benchMcp } from './lib/mcp.js';
import { fillNotifications, streamBench } from './lib/notifications.js';
import { benchOrphanSweep, writeOrphanSweepReport } from './lib/orphan-sweep.js';
import { benchOutbound, outboundTable } from './lib/outbound.js';
import {
  cpuOfCommand,
  freePort,
  type OnePartSpec,
  ownCpuSeconds,
  type Part,
  startOneProcess,
  startPart,
} from './lib/processes.js';
import { type BenchReport, machineInfo, roundSuffix, writeReport } from './lib/report.js';
import { benchRunEnvironment } from './lib/run-environment.js';
import { benchSearch, FRESH, freshOver } from './lib/search-bench.js';
import { type SearchBenchReport, writeSearchReport } from './lib/search-report.js';
import { createRoots, creationBody, seedDocuments, spreadCreations } from './lib/seed.js';
import { benchWeb, writeWebReport } from './lib/web.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const num = (name: string, fallback: number) => (args[name] !== undefined ? Number(args[name]) : fallback);
const settings = {
  durationS: num('duration', 10),
  connections: num('connections', 10),
  treeConnections: num('tree-connections', 1),
  roots: num('roots', 100),
  perRoot: num('per-root', 99),
  seedConcurrency: num('seed-concurrency', 32),
  /** Sustained creation runs, one per connection count. */
  createConnections: String(args['create-connections'] ?? '32,64,128'),
  /**
   * Hello-world and the read through the gateway run alternately this many times, and the read's
   * ratio is the median of the rounds' ratios: on shared cores a busy spell then hits both sides.
   */
  readRounds: num('read-rounds', 3),
  /**
   * `separate` (default): every part in its own process, as the throughput targets are judged;
   * `one`: every part in one process, as `npm start` runs them by default (issue 29 point 4).
   */
  processes: String(args.processes ?? 'separate'),
  logLevel: String(args['log-level'] ?? 'warn'),
  /** Generated documents in the workspace searched one query at a time (issue 12 point 8, issue 29: 100,000). */
  searchDocuments: num('search-documents', 100_000),
  /** Generated documents in the workspace of the search rows at 10 and 50 connections (issue 29: 10,000). */
  searchFreshDocuments: num('search-fresh-documents', 10_000),
  /** Documents created per second, and for how long, while the write → searchable lag is measured. */
  lagRate: num('lag-rate', 25),
  lagDurationS: num('lag-duration', 20),
  /** Notification streams held by one replica, and the comment load of the mention → stream latency. */
  streams: num('streams', 1000),
  mentionRate: num('mention-rate', 20),
  mentionDurationS: num('mention-duration', 20),
  /** Comma-separated scenarios to run after seeding (default all): hello, read, read-service, tree, create, notification, search, attachment, export. */
  only: String(
    args.only ??
      'hello,read,read-service,tree,create,endpoints,notification,search,attachment,export,import,tree-export,collab,mcp,history,outbound,web,footprint',
  ),
  /** History rows: rounds of title edits with history on, on for every change, and off. */
  historyRounds: num('history-rounds', 3),
  /** Connection counts of the endpoint rows. */
  endpointConnections: String(args['endpoint-connections'] ?? '10,50'),
  /** Only these endpoint rows, by short name (bench/lib/endpoints.ts ENDPOINT_KEYS), e.g. roots,children. */
  endpointRows: args.endpoints ? String(args.endpoints).split(',') : undefined,
  /** Collaboration rows: open documents, editors on each, keystrokes per editor per second, seconds of typing. */
  collabDocuments: num('collab-documents', 100),
  collabEditors: num('collab-editors', 5),
  collabRate: num('collab-rate', 2),
  collabDurationS: num('collab-duration', 20),
  /** Export rows: requests per format one at a time, and the throughput runs' length and clients. */
  exportRequests: num('export-requests', 30),
  exportSeconds: num('export-seconds', 15),
  exportClients: num('export-clients', 8),
  /** Text extraction row (with the attachment rows): pages of ~2,000 characters, and runs of it. */
  extractionPages: num('extraction-pages', 100),
  extractionRuns: num('extraction-runs', 5),
  /** Issue 32's rows: Markdown files in the import zip (a multiple of 50), formats of the workspace export. */
  importFiles: num('import-files', 1000),
  treeExportFormats: String(args['tree-export-formats'] ?? 'markdown,pdf'),
  /** How long one import or export job may take before the row fails. */
  jobTimeoutS: num('job-timeout', 1800),
};
/**
 * Above this load average when a run starts, other work shares the machine: the search rows are
 * reported but not judged against their targets (2 cores; the bench's own parts are idle then).
 */
const QUIET_LOAD_AVERAGE = 1;
/** The load average before this run built or started anything: what other work puts on the machine. */
const loadAtLaunch = Math.round(loadavg()[0] * 100) / 100;
/** The creation target is judged at this many connections (see docs/PERFORMANCE.md). */
const TARGET_CREATE_CONNECTIONS = 64;
/** How long the parts sit without requests before their "idle after the load" RSS is read. */
const IDLE_AFTER_LOAD_S = 40;
const wanted = new Set(settings.only.split(','));
if (!['one', 'separate'].includes(settings.processes)) throw new Error('--processes is one or separate');
const oneProcess = settings.processes === 'one';
// These rows restart or add a part while they run, which the one process cannot do apart.
for (const apart of ['history', 'export', 'import', 'tree-export'])
  if (oneProcess && wanted.has(apart)) throw new Error(`--only=${apart} runs with --processes=separate only`);
/** The 10,000 documents are seeded only for the document service's rows. */
const seedsDocuments = ['read', 'read-service', 'tree', 'create', 'endpoints'].some((s) => wanted.has(s));
/** The comment service runs for the mentions of the notification rows and the thread list of the endpoint rows. */
const wantsComments = wanted.has('notification') || wanted.has('endpoints') || wanted.has('outbound');
/** The search, notification and attachment services run for their own rows and for the endpoint rows on them. */
const endpointServices = new Set(wanted.has('endpoints') ? servicesOfEndpoints(settings.endpointRows) : []);
/** Issue 32's job rows: the export API and worker, and the attachment service for the imported images. */
const wantsJobs = wanted.has('import') || wanted.has('tree-export');
const runsService = (service: string) =>
  wanted.has(service) ||
  endpointServices.has(service) ||
  (service === 'notification' && wanted.has('outbound')) ||
  (wantsJobs && (service === 'export' || service === 'attachment'));
class PartialRun extends Error {}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// `--only=orphan-sweep` runs alone, before anything is built or started: it needs Postgres only
// (and s3rver, which it starts); --sweep-objects=10000,100000 --sweep-drivers=local,s3.
if (settings.only === 'orphan-sweep') {
  const sweepName = `bench_${randomBytes(4).toString('hex')}`;
  const report = await benchOrphanSweep({
    pgUrl: loadConfig(process.env).pgUrl,
    name: sweepName,
    objects: String(args['sweep-objects'] ?? '10000,100000')
      .split(',')
      .map(Number),
    drivers: String(args['sweep-drivers'] ?? 'local,s3').split(',') as Array<'local' | 's3'>,
    s3Concurrency: num('sweep-s3-concurrency', 32),
    log,
  });
  const stamp = report.date.replace(/[:.]/g, '-');
  writeOrphanSweepReport(
    report,
    join(root, `bench/results/${stamp}-orphan-sweep.json`),
    join(root, 'docs/PERFORMANCE.md'),
  );
  log('orphan sweep: done');
  process.exit(0);
}
// `--only=web` (also part of a full run, first): the web app's budget, with the platform in this
// process and Chromium (--web-cold-runs=10 --web-keystrokes=100); needs web/dist (built here).
if (wanted.has('web')) {
  log('building the web app (npm run build -w web)');
  const webBuild = spawnSync('npm', ['run', 'build', '-w', 'web'], { cwd: root, stdio: 'inherit' });
  if (webBuild.status !== 0) throw new Error('the web build failed');
  const report = await benchWeb({ coldRuns: num('web-cold-runs', 10), keystrokes: num('web-keystrokes', 100), log });
  const stamp = report.date.replace(/[:.]/g, '-');
  writeWebReport(report, join(root, `bench/results/${stamp}-web.json`), join(root, 'docs/PERFORMANCE.md'));
  for (const t of report.targets) log(`web: ${t.target}: ${t.measured} (${t.met ? 'met' : 'NOT met'})`);
  if (settings.only === 'web') process.exit(0);
}
log('building gateway and services (tsc -b)');
const build = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-b',
    'gateway',
    'services/workspace',
    'services/document',
    'services/search',
    'services/attachment',
    'services/export',
    'services/comment',
    'services/notification',
    'services/collab',
    'services/mcp',
  ],
  { cwd: root, stdio: 'inherit' },
);
if (build.status !== 0) throw new Error('the build failed');

// The footprint rows run `npm start` itself (both modes, one after the other) before this script
// starts any part of its own.
if (wanted.has('footprint')) {
  const report = await benchFootprint(root, IDLE_AFTER_LOAD_S, log);
  const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
  writeFootprintReport(
    report,
    join(root, 'bench/results', `${stamp}-footprint.json`),
    join(root, 'docs/PERFORMANCE.md'),
  );
  for (const t of report.targets) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  if (settings.only === 'footprint') process.exit(0);
}

const name = `bench_${randomBytes(4).toString('hex')}`;
const [gatewayPort, workspacePort, documentPort, searchPort, notificationPort, helloPort, attachmentPort] =
  await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
/** The export API, then each export worker process (a worker listens for its health probes only). */
const [exportPort, ...exportWorkerPorts] = await Promise.all([freePort(), freePort(), freePort()]);
/** The comment service makes the mentions of the notification part. */
const commentPort = await freePort();
const collabPort = await freePort();
const mcpPort = await freePort();
/** The outbound rows' SMTP server (bench/lib/outbound.ts starts it there). */
const smtpPort = await freePort();
// The parts run as `npm start` and the images run them (scripts/lib/service-process.mjs).
const env: Record<string, string> = {
  ...serviceEnv,
  ...benchRunEnvironment(name, settings.logLevel),
  GATEWAY_SERVICES: [
    'workspace',
    'document',
    'search',
    'notification',
    'attachment',
    'export',
    'comment',
    'collab',
    'mcp',
  ]
    .filter((s) => s === 'workspace' || s === 'document' || (s === 'comment' ? wantsComments : runsService(s)))
    .join(','),
  PORT: String(gatewayPort),
  WORKSPACE_PORT: String(workspacePort),
  DOCUMENT_PORT: String(documentPort),
  SEARCH_PORT: String(searchPort),
  NOTIFICATION_PORT: String(notificationPort),
  COMMENT_PORT: String(commentPort),
  ATTACHMENT_PORT: String(attachmentPort),
  EXPORT_PORT: String(exportPort),
  COLLAB_PORT: String(collabPort),
  MCP_PORT: String(mcpPort),
  // Each part's /metrics on any free port: the parts' own ports are free ones, + 1000 may not be.
  METRICS_PORT: '0',
  // The collaboration server calls the gateway back (token checks, the internal document API).
  GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
  // Capacity, not the per-user bounds (ARCHITECTURE 5.14): one user holds every editor of the
  // collab rows, and --streams above 1,000 gives each of the 100 stream users more than ten.
  NOTIFICATION_STREAMS_PER_USER: '10000',
  COLLAB_CONNECTIONS_PER_USER: '100000',
  HOST: '127.0.0.1',
  // The outbound rows: mail to their SMTP server, webhooks to their receiver on loopback.
  ...(wanted.has('outbound') ? { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } : {}),
};
const config = loadConfig({ ...process.env, ...env });
const parts: Part[] = [];
/** BENCH_PROFILE=document (or another part's name) writes a V8 CPU profile of that part into bench/results/profiles. */
const profile = (part: string) =>
  (process.env.BENCH_PROFILE ?? '').split(',').includes(part)
    ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/results/profiles')}`]
    : [];

/** One-process mode: each part's view of the one process (its URL; the process's RSS and CPU). */
let views = new Map<string, Part>();
/** A part by name: its own process, or in one-process mode its view of the one process. */
const partNamed = (name: string): Part => {
  const part = views.get(name) ?? parts.find((p) => p.name === name);
  if (!part) throw new Error(`no part named ${name} runs in this bench`);
  return part;
};

try {
  parts.push(
    await startPart('hello-world', join(root, 'bench/hello.mjs'), { PORT: String(helloPort) }, helloPort, '/'),
  );
  /** In one-process mode, the parts declared so far, started together by `launchOneProcess`. */
  const declared: OnePartSpec[] = [];
  /** A service from its dist/main.js with the run's environment (plus `extra`), on `port`. */
  const startService = async (name: string, port: number, extra: Record<string, string> = {}, profiled = name) => {
    const service = name.replace(/-worker-\d+$/, '');
    if (oneProcess) {
      declared.push({ name, port, module: join(root, `services/${service}/dist/part.js`), set: extra });
      return;
    }
    parts.push(
      await startPart(
        name,
        join(root, `services/${service}/dist/main.js`),
        { ...env, ...extra },
        port,
        '/health/ready',
        [...serviceNodeFlags, ...profile(profiled)],
      ),
    );
  };
  await startService('workspace', workspacePort);
  await startService('document', documentPort);
  if (runsService('search')) await startService('search', searchPort);
  if (wantsComments) await startService('comment', commentPort);
  if (runsService('notification')) await startService('notification', notificationPort);
  if (runsService('attachment')) await startService('attachment', attachmentPort);
  if (wanted.has('mcp')) await startService('mcp', mcpPort);
  if (wanted.has('collab')) await startService('collab', collabPort);
  // The export API and its workers apart (EXPORT_ROLE), so that the rows can add a second worker.
  const startExportWorker = async (n: number) => {
    const port = exportWorkerPorts[n - 1] as number;
    await startService(
      `export-worker-${n}`,
      port,
      { EXPORT_ROLE: 'worker', EXPORT_PORT: String(port) },
      'export-worker',
    );
  };
  if (runsService('export')) {
    await startService('export', exportPort, { EXPORT_ROLE: 'api' });
    await startExportWorker(1);
  }
  if (oneProcess) {
    declared.push({ name: 'gateway', port: gatewayPort, module: join(root, 'gateway/dist/part.js'), set: {} });
    const one = await startOneProcess(join(root, 'scripts/one-process.mjs'), env, declared, [
      ...serviceNodeFlags,
      ...profile('one-process'),
    ]);
    parts.push(one.process);
    views = one.views;
  } else {
    parts.push(
      await startPart('gateway', join(root, 'gateway/dist/main.js'), env, gatewayPort, '/health/ready', [
        ...serviceNodeFlags,
        ...profile('gateway'),
      ]),
    );
  }
  const hello = partNamed('hello-world');
  const documentPart = partNamed('document');
  const gateway = partNamed('gateway');
  const loadBefore = Math.round(loadavg()[0] * 100) / 100;
  await sleep(3000);
  const rssOfParts = () => Object.fromEntries(parts.map((p) => [p.name, p.rssMiB()]));
  const idleAfterStart = rssOfParts();
  log(`idle RSS after start (MiB): ${JSON.stringify(idleAfterStart)}`);

  const token = await mintDevToken(config.dataDir, 'bench@example.com', 'Bench User');
  const auth = { authorization: `Bearer ${token}` };
  /** A new workspace of the bench's user (the job and search rows work in their own). */
  const createWorkspace = async (name: string) => {
    const res = await fetch(`${gateway.url}/api/v1/workspaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const me = (await (await fetch(`${gateway.url}/api/v1/users/me`, { headers: auth })).json()) as {
    data: { id: string };
  };
  const created = await fetch(`${gateway.url}/api/v1/workspaces`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench' }),
  });
  const workspaceId = ((await created.json()) as { data: { id: string } }).data.id;

  if (seedsDocuments) log(`seeding ${settings.roots * (1 + settings.perRoot)} documents through the gateway`);
  // Everything on the machine that works for a creation: the parts, Postgres, NATS and this client.
  const cpuMeters: CpuMeter[] = [
    ...parts.filter((p) => p.name !== 'hello-world').map((p): CpuMeter => [p.name, () => p.cpuSeconds()]),
    ['postgres', () => cpuOfCommand('postgres')],
    ['nats-server', () => cpuOfCommand('nats-server')],
    ['bench client', ownCpuSeconds],
  ];
  const cpuBefore = cpuMeters.map(([, meter]) => meter());
  const seeding = seedsDocuments
    ? await seedDocuments(gateway.url, token, workspaceId, settings.roots, settings.perRoot, settings.seedConcurrency)
    : { documents: 0, seconds: 0, documentsPerSec: 0, rootIds: [] as string[] };
  const seedingCpu = Object.fromEntries(
    cpuMeters.map(([part, meter], i) => [part, Math.round((meter() - cpuBefore[i]) * 100) / 100]),
  );
  log(
    `seeded ${seeding.documents} documents in ${seeding.seconds} s (${seeding.documentsPerSec}/s); CPU seconds used meanwhile: ${JSON.stringify(seedingCpu)}`,
  );
  if (seedsDocuments) await sleep(2000); // let the outbox drain before measuring reads

  const documentId = seeding.rootIds[0];
  const identity = await mintIdentityToken(
    config.internalTokenSecret,
    { kind: 'user', userId: me.data.id, email: 'bench@example.com', name: 'Bench User' },
    3600,
  );
  const scenarios: LoadResult[] = [];
  const run = async (
    scenario: string,
    url: string,
    connections: number,
    headers?: Record<string, string>,
    more: Partial<Parameters<typeof load>[2]> = {},
  ) => {
    log(`${scenario}: ${connections} connections, ${settings.durationS} s`);
    const result = await load(scenario, url, {
      connections,
      durationS: settings.durationS,
      headers,
      cpuMeters,
      ...more,
    });
    log(
      `${scenario}: ${result.requestsPerSec} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors + result.non2xx}${result.cpuMsPerRequest ? `, CPU ms per request ${JSON.stringify(result.cpuMsPerRequest)}` : ''}`,
    );
    scenarios.push(result);
  };
  const rounds = wanted.has('hello') && wanted.has('read') ? Math.max(1, settings.readRounds) : 1;
  for (let round = 1; round <= rounds; round++) {
    if (wanted.has('hello')) await run(`hello-world${roundSuffix(round)}`, `${hello.url}/`, settings.connections);
    if (wanted.has('read'))
      await run(
        `document read${roundSuffix(round)}`,
        `${gateway.url}/api/v1/documents/${documentId}`,
        settings.connections,
        auth,
      );
  }
  if (wanted.has('read-service'))
    await run(
      'document read (service only)',
      `${documentPart.url}/api/v1/documents/${documentId}`,
      settings.connections,
      { 'x-wiki-identity': identity },
    );
  const treeUrl = `${gateway.url}/api/v1/documents/tree?workspaceId=${workspaceId}`;
  const treeBytes = (await (await fetch(treeUrl, { headers: auth })).arrayBuffer()).byteLength;
  if (wanted.has('tree')) {
    await run(
      'tree (10k)',
      `${gateway.url}/api/v1/documents/tree?workspaceId=${workspaceId}`,
      settings.treeConnections,
      auth,
    );
    await run('tree (10k), 4 connections', `${gateway.url}/api/v1/documents/tree?workspaceId=${workspaceId}`, 4, auth);
    // As a browser asks for it: the service keeps the answer gzipped too (autocannon does not unzip).
    await run(
      'tree (10k, gzip)',
      `${gateway.url}/api/v1/documents/tree?workspaceId=${workspaceId}`,
      settings.treeConnections,
      { ...auth, 'accept-encoding': 'gzip, deflate, br' },
    );
    await run(
      'tree (10k, service only)',
      `${documentPart.url}/api/v1/documents/tree?workspaceId=${workspaceId}`,
      settings.treeConnections,
      { 'x-wiki-identity': identity },
    );
  }
  if (wanted.has('create')) {
    // In a workspace of its own (the tree above stays 10,000 documents), under 100 parents.
    const res = await fetch(`${gateway.url}/api/v1/workspaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench creation' }),
    });
    const creationWorkspace = ((await res.json()) as { data: { id: string } }).data.id;
    const parents = await createRoots(gateway.url, token, creationWorkspace, 100, 32);
    const bodies = parents.map((id, i) => creationBody(creationWorkspace, `Page ${i + 1}`, id));
    for (const connections of settings.createConnections.split(',').map(Number)) {
      await run(`document creation`, `${gateway.url}/api/v1/documents`, connections, undefined, {
        autocannon: spreadCreations(token, bodies, connections),
      });
      await sleep(2000); // the relay and the consumers catch up before the next run
    }
  }

  if (wanted.has('notification')) {
    const notificationPart = partNamed('notification');
    const streamReport = await streamBench({
      gatewayUrl: gateway.url,
      serviceUrl: notificationPart.url,
      dataDir: config.dataDir,
      ownerToken: token,
      workspaceId,
      streams: settings.streams,
      mentionRate: settings.mentionRate,
      mentionDurationS: settings.mentionDurationS,
      rss: () => ({ notification: notificationPart.rssMiB(), gateway: gateway.rssMiB() }),
      log,
    });
    const streamFile = `${streamReport.date.replace(/:/g, '-').replace(/\..+$/, '')}-notification.json`;
    writeFileSync(join(root, 'bench/results', streamFile), `${JSON.stringify(streamReport, null, 2)}\n`);
    log(`wrote bench/results/${streamFile}`);
    await fillNotifications(config.databaseUrls.notification, me.data.id, 500);
    for (const connections of [settings.connections, 50]) {
      await run('notification count', `${gateway.url}/api/v1/notifications/count`, connections, auth);
      await run(
        'notification list (page of 20 of 500)',
        `${gateway.url}/api/v1/notifications?page=0&size=20`,
        connections,
        auth,
      );
    }
  }

  if (wanted.has('endpoints')) {
    const endpoints = await measureEndpoints({
      gatewayUrl: gateway.url,
      helloUrl: hello.url,
      token,
      dataDir: config.dataDir,
      treeWorkspace: workspaceId,
      readDocument: documentId,
      connections: settings.endpointConnections.split(',').map(Number),
      durationS: settings.durationS,
      cpuMeters,
      withComments: wantsComments,
      only: settings.endpointRows,
      notificationDatabaseUrl: config.databaseUrls.notification,
      log,
      settle: async () => {
        await sleep(2000);
      },
    });
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '');
    writeFileSync(
      join(root, 'bench/results', `${stamp}-endpoints${oneProcess ? '-one-process' : ''}.json`),
      `${JSON.stringify({ date: new Date().toISOString(), processes: settings.processes, ...endpoints, rssMiB: rssOfParts() }, null, 2)}\n`,
    );
    log(`wrote bench/results/${stamp}-endpoints${oneProcess ? '-one-process' : ''}.json\n${endpointTable(endpoints)}`);
  }

  if (wanted.has('mcp')) {
    const keyRes = await fetch(`${gateway.url}/api/v1/users/me/mcp-keys`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const key = ((await keyRes.json()) as { data: { key: string } }).data.key;
    const docRes = await fetch(`${gateway.url}/api/v1/documents`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId,
        title: 'MCP bench page',
        content: Array.from({ length: 20 }, (_, i) => ({
          type: 'paragraph',
          content: [{ type: 'text', text: `Paragraph ${i + 1}: ${'words of a wiki page '.repeat(10)}`, styles: {} }],
        })),
      }),
    });
    const mcpDocumentId = ((await docRes.json()) as { data: { id: string } }).data.id;
    const mcp = await benchMcp({
      gatewayUrl: gateway.url,
      helloUrl: hello.url,
      key,
      documentId: mcpDocumentId,
      durationS: settings.durationS,
      cpuMeters,
      log,
    });
    scenarios.push(
      ...mcp.rows.map((r) => (r.scenario === 'hello-world' ? { ...r, scenario: 'hello-world (mcp rows)' } : r)),
    );
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '');
    writeFileSync(
      join(root, 'bench/results', `${stamp}-mcp.json`),
      `${JSON.stringify({ date: new Date().toISOString(), rows: mcp.rows, clientStart: mcp.start, rssMiB: rssOfParts() }, null, 2)}\n`,
    );
    log(`wrote bench/results/${stamp}-mcp.json`);
  }

  if (wanted.has('attachment')) {
    const attachmentPart = partNamed('attachment');
    const rssBefore = attachmentPart.rssMiB();
    const rows = await benchAttachments({
      gatewayUrl: gateway.url,
      serviceUrl: attachmentPart.url,
      helloUrl: hello.url,
      token,
      identity,
      durationS: settings.durationS,
      cpuMeters,
      serviceRssMiB: () => attachmentPart.rssMiB(),
      log,
    });
    const rssAfter = attachmentPart.rssMiB();
    log(`text extraction: ${settings.extractionPages}-page PDF, ${settings.extractionRuns} runs`);
    const extraction = await benchExtraction({
      pages: settings.extractionPages,
      runs: settings.extractionRuns,
      log,
    });
    log(`text extraction: ${extraction.medianPagesPerSec} pages/s (median of ${extraction.runs})`);
    const report: AttachmentBenchReport = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      settings: { durationS: settings.durationS, only: settings.only, loadAverageAtStart: loadBefore },
      fileBytes: ATTACHMENT_FILE_BYTES,
      scenarios: rows,
      rssMiB: { before: rssBefore, after: rssAfter },
      extraction,
    };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeAttachmentReport(
      report,
      join(root, 'bench/results', `${stamp}-attachment.json`),
      join(root, 'docs/PERFORMANCE.md'),
    );
    log(`wrote bench/results/${stamp}-attachment.json and the attachment section of docs/PERFORMANCE.md`);
  }

  if (wanted.has('collab')) {
    const collabPart = partNamed('collab');
    const result = await benchCollab({
      gatewayUrl: gateway.url,
      token,
      workspaceId,
      collabRssMiB: () => collabPart.rssMiB(),
      cpuMeters,
      settings: {
        documents: settings.collabDocuments,
        editorsPerDocument: settings.collabEditors,
        typingRate: settings.collabRate,
        durationS: settings.collabDurationS,
      },
      log,
    });
    const report: CollabBenchReport = {
      ...result,
      date: new Date().toISOString(),
      machine: machineInfo(),
      settings: { ...result.settings, loadAverageAtStart: loadBefore },
    };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeCollabReport(report, join(root, 'bench/results', `${stamp}-collab.json`), join(root, 'docs/PERFORMANCE.md'));
    log(
      `collab: fan-out p50/p99 ${report.fanOutMs.p50}/${report.fanOutMs.p99} ms, ${report.mibPerOpenDocument} MiB per open document; wrote bench/results/${stamp}-collab.json`,
    );
  }

  if (wanted.has('export')) {
    const rows = await benchExport({
      gatewayUrl: gateway.url,
      token,
      workspaceId,
      addWorker: () => startExportWorker(2),
      requests: settings.exportRequests,
      throughputSeconds: settings.exportSeconds,
      clients: settings.exportClients,
      log,
    });
    const report: ExportBenchReport = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      settings: {
        only: settings.only,
        exportRequests: settings.exportRequests,
        exportSeconds: settings.exportSeconds,
        exportClients: settings.exportClients,
        loadAverageAtStart: loadBefore,
      },
      ...rows,
    };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeExportReport(report, join(root, 'bench/results', `${stamp}-export.json`), join(root, 'docs/PERFORMANCE.md'));
    log(`wrote bench/results/${stamp}-export.json and the export section of docs/PERFORMANCE.md`);
    for (const t of report.targets) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  }

  if (wantsJobs) {
    // The same run's hello-world beside the rows: what the machine gave a bare server meanwhile.
    const helloRow = await load('hello-world (jobs rows)', `${hello.url}/`, {
      connections: settings.connections,
      durationS: settings.durationS,
    });
    log(`hello-world (jobs rows): ${helloRow.requestsPerSec} req/s`);
    const rows = await benchJobs({
      gatewayUrl: gateway.url,
      token,
      createWorkspace,
      workerPid: partNamed('export-worker-1').child.pid as number,
      files: settings.importFiles,
      exportFormats: wanted.has('tree-export') ? settings.treeExportFormats.split(',') : [],
      reportImport: wanted.has('import'),
      timeoutMs: settings.jobTimeoutS * 1000,
      log,
    });
    const report: JobsBenchReport = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      settings: {
        only: settings.only,
        importFiles: settings.importFiles,
        treeExportFormats: settings.treeExportFormats,
        // Raised by hand only to get figures on a machine so busy that the worker loses its job's lock.
        ...(process.env.EXPORT_LOCK_MS ? { exportLockMs: process.env.EXPORT_LOCK_MS } : {}),
        loadAverageAtLaunch: loadAtLaunch,
        loadAverageAtStart: loadBefore,
        loadAverageAtEnd: Math.round(loadavg()[0] * 100) / 100,
      },
      helloWorld: {
        requestsPerSec: helloRow.requestsPerSec,
        connections: helloRow.connections,
        latencyP50Ms: helloRow.latencyP50Ms,
      },
      rows,
    };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeJobsReport(report, join(root, 'bench/results', `${stamp}-jobs.json`), join(root, 'docs/PERFORMANCE.md'));
    log(`wrote bench/results/${stamp}-jobs.json and the jobs section of docs/PERFORMANCE.md`);
  }

  if (wanted.has('outbound')) {
    const outbound = await benchOutbound({
      api: { gatewayUrl: gateway.url, token },
      helloUrl: hello.url,
      dataDir: config.dataDir,
      workspaceId,
      smtpPort,
      connections: [10, 50],
      durationS: settings.durationS,
      messages: num('outbound-messages', 1000),
      deliveries: num('outbound-deliveries', 500),
      cpuMeters,
      log,
    });
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '');
    const file = `${stamp}-outbound${oneProcess ? '-one-process' : ''}.json`;
    writeFileSync(
      join(root, 'bench/results', file),
      `${JSON.stringify({ date: new Date().toISOString(), processes: settings.processes, loadAverageAtStart: loadBefore, ...outbound }, null, 2)}\n`,
    );
    log(`wrote bench/results/${file}\n${outboundTable(outbound)}`);
  }

  if (wanted.has('history')) {
    const restartDocument = async (extra: Record<string, string>) => {
      const at = parts.findIndex((p) => p.name === 'document');
      await parts[at].stop();
      parts.splice(at, 1);
      await startService('document', documentPort, extra);
      log(`document service restarted with ${JSON.stringify(extra)}`);
    };
    const documentNow = () => parts.find((p) => p.name === 'document')!;
    const history = await benchHistory({
      api: { gatewayUrl: gateway.url, token },
      helloUrl: hello.url,
      workspaceId,
      connections: [10, 50],
      durationS: settings.durationS,
      rounds: settings.historyRounds,
      restartDocument,
      cpuMeters: [
        ['gateway', () => gateway.cpuSeconds()],
        ['document', () => documentNow().cpuSeconds()],
        ['postgres', () => cpuOfCommand('postgres')],
      ],
      log,
    });
    // The rest of the run sees the document service as it started.
    await restartDocument({});
    const report = { date: new Date().toISOString(), machine: machineInfo(), ...history };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeHistoryReport(report, join(root, 'bench/results', `${stamp}-history.json`), join(root, 'docs/PERFORMANCE.md'));
    log(`wrote bench/results/${stamp}-history.json and the history section of docs/PERFORMANCE.md`);
    for (const t of report.targets) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  }

  if (wanted.has('search')) {
    // Workspaces of their own holding the generated documents (the 10,000 above are indexed too,
    // in theirs: the search service consumes every document event).
    const searched = await benchSearch({
      gatewayUrl: gateway.url,
      helloUrl: hello.url,
      token,
      createWorkspace,
      searchDatabaseUrl: config.databaseUrls.search,
      freshDocuments: settings.searchFreshDocuments,
      documents: settings.searchDocuments,
      durationS: settings.durationS,
      lagRate: settings.lagRate,
      lagDurationS: settings.lagDurationS,
      cpuMeters,
      log,
    });
    const row = (scenario: string, connections: number) =>
      searched.scenarios.find((r) => r.scenario === scenario && r.connections === connections)!;
    const share = (scenario: string, connections: number) =>
      row(scenario, connections).requestsPerSec / row('hello-world', connections).requestsPerSec;
    const fresh50 = row(FRESH, 50);
    const freshLarge = row(freshOver(settings.searchDocuments), 1);
    const loadAfter = loadavg()[0];
    const report: SearchBenchReport = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      settings: {
        durationS: settings.durationS,
        searchFreshDocuments: settings.searchFreshDocuments,
        searchDocuments: settings.searchDocuments,
        lagRate: settings.lagRate,
        lagDurationS: settings.lagDurationS,
        only: settings.only,
        loadAverageAtLaunch: loadAtLaunch,
        loadAverageAtStart: loadBefore,
        loadAverageAfterSearchRows: Math.round(loadAfter * 100) / 100,
      },
      ...searched,
      sharedMachine:
        loadAtLaunch > QUIET_LOAD_AVERAGE ? { loadAverage: loadAtLaunch, threshold: QUIET_LOAD_AVERAGE } : null,
      targets: [
        {
          target: `every query new (${settings.searchFreshDocuments.toLocaleString('en')} documents) ≥ 3.5 % of hello-world req/s at 50 connections`,
          measured: `${(share(FRESH, 50) * 100).toFixed(2)} % (${fresh50.requestsPerSec} req/s)`,
          met: share(FRESH, 50) >= 0.035,
        },
        {
          target: 'every query new, p99 < 100 ms at 50 connections',
          measured: `${fresh50.latencyP99Ms} ms`,
          met: fresh50.latencyP99Ms < 100,
        },
        {
          target: `every query new, p95 < 30 ms at 1 connection over ${settings.searchDocuments.toLocaleString('en')} documents`,
          measured: `${freshLarge.latencyP95Ms} ms`,
          met: (freshLarge.latencyP95Ms ?? Number.POSITIVE_INFINITY) < 30,
        },
        {
          target: 'write → searchable p99 < 250 ms under a steady write load',
          measured: `${searched.lag.p99Ms} ms (${settings.lagRate} documents/s, ${searched.lag.notFound} not found)`,
          met: searched.lag.notFound === 0 && searched.lag.p99Ms < 250,
        },
      ],
    };
    const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
    writeSearchReport(report, join(root, 'bench/results', `${stamp}-search.json`), join(root, 'docs/PERFORMANCE.md'));
    log(`wrote bench/results/${stamp}-search.json and the search section of docs/PERFORMANCE.md`);
    for (const t of report.targets) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  }

  if (!['hello', 'read', 'tree', 'create'].every((s) => wanted.has(s)))
    throw new PartialRun('partial run (--only): no document report written');

  // V8 gives the heap it grew under load back in steps once allocation stops (its memory reducer
  // starts a few seconds after the last full collection): idle means some time after the load.
  await sleep(3000);
  const justAfterLoad = rssOfParts();
  log(`RSS 3 s after the load (MiB): ${JSON.stringify(justAfterLoad)}`);
  await sleep((IDLE_AFTER_LOAD_S - 3) * 1000);
  const idleAfterLoad = rssOfParts();
  log(`idle RSS ${IDLE_AFTER_LOAD_S} s after the load (MiB): ${JSON.stringify(idleAfterLoad)}`);

  const byName = (s: string) => scenarios.find((r) => r.scenario === s)!;
  const readRatios = Array.from(
    { length: rounds },
    (_, i) =>
      byName(`document read${roundSuffix(i + 1)}`).requestsPerSec /
      byName(`hello-world${roundSuffix(i + 1)}`).requestsPerSec,
  );
  const readRatio = median(readRatios);
  const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
  const tree = byName('tree (10k)');
  const creation = scenarios.find(
    (r) => r.scenario === 'document creation' && r.connections === TARGET_CREATE_CONNECTIONS,
  );
  const services = ['gateway', 'workspace', 'document'];
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: machineInfo(),
    settings: {
      ...settings,
      freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
      loadAverageAtStart: loadBefore,
      treeResponseBytes: treeBytes,
    },
    seeding: {
      documents: seeding.documents,
      seconds: seeding.seconds,
      documentsPerSec: seeding.documentsPerSec,
      cpuSeconds: seedingCpu,
    },
    scenarios,
    rssMiB: { idleAfterStart, justAfterLoad, idleAfterLoad, idleAfterLoadS: IDLE_AFTER_LOAD_S },
    targets: [
      {
        target: 'document read through the gateway ≥ 10 % of hello-world req/s',
        measured:
          rounds > 1
            ? `${percent(readRatio)} (median of ${rounds} alternating rounds: ${readRatios.map(percent).join(', ')})`
            : percent(readRatio),
        met: readRatio >= 0.1,
      },
      {
        target: 'tree of 10,000 documents p50 < 60 ms',
        measured: `${tree.latencyP50Ms} ms (${tree.connections} connection)`,
        met: tree.latencyP50Ms < 60,
      },
      {
        target: '≥ 1,000 documents/s created',
        measured: creation
          ? `${creation.requestsPerSec}/s (${TARGET_CREATE_CONNECTIONS} connections, 10 s)`
          : `not measured at ${TARGET_CREATE_CONNECTIONS} connections`,
        met: (creation?.requestsPerSec ?? 0) >= 1000,
      },
      ...services.map((s) => ({
        target: `${s} < 120 MB RSS idle`,
        measured: `${idleAfterStart[s]} MiB after start, ${idleAfterLoad[s]} MiB ${IDLE_AFTER_LOAD_S} s after the load`,
        met: Math.max(idleAfterStart[s], idleAfterLoad[s]) * 1.048576 < 120,
      })),
    ],
  };
  const stamp = report.date.replace(/:/g, '-').replace(/\..+$/, '');
  writeReport(report, join(root, 'bench/results', `${stamp}.json`), join(root, 'docs/PERFORMANCE.md'));
  log(`wrote bench/results/${stamp}.json and docs/PERFORMANCE.md`);
  for (const t of report.targets) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
} catch (error) {
  if (!(error instanceof PartialRun)) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  } else {
    log(error.message);
  }
} finally {
  for (const part of [...parts].reverse()) await part.stop();
  await cleanupConfig(config);
}
