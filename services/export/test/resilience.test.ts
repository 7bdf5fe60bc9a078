import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { createDocument, paragraph, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../src/app.js';
import { QUEUE_NAME, redisOptions } from '../src/queue/jobs.js';
import { type RunningWorker, startExportWorker } from '../src/queue/worker.js';
import { startService as startExport } from '../src/service.js';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings } from '../src/settings.js';
import { download, FAST, json, pdfText, startExportStack } from './helpers.js';

const quiet = { info() {}, warn() {}, error() {} };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  });

/** The API alone (no worker in the stack): each test brings the workers it needs. */
let stack: Stack;
let owner: SignedInUser;
const apiSettings: Partial<ExportSettings> = { role: 'api', timeoutMs: 25_000 };
const workers: RunningWorker[] = [];
const servers: Server[] = [];

function workerSettings(): ExportSettings {
  return { ...DEFAULT_EXPORT_SETTINGS, ...FAST, role: 'worker' };
}

/** A worker in this process; `documentUrl` replaces the document service's address it uses. */
async function startWorker(documentUrl?: string): Promise<RunningWorker> {
  const config: Config = { ...stack.config, urls: { ...stack.config.urls } };
  if (documentUrl) config.urls.document = documentUrl;
  const worker = await startExportWorker({
    config,
    settings: workerSettings(),
    prefix: queuePrefixOf(stack.config, {}),
    logger: quiet,
  });
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  stack = await startExportStack(apiSettings);
  owner = await signInNew(stack, 'Owner');
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  for (const server of servers.splice(0)) await close(server);
});

afterAll(async () => {
  await stack?.stop();
});

describe('the queue between the API and its workers', () => {
  it('answers 503 when no worker finishes in time, and takes the job off the queue', async () => {
    const quick = await startExportStack({ role: 'api', timeoutMs: 800 });
    try {
      const user = await signInNew(quick, 'Waiting');
      const doc = await createDocument(quick, user, { title: 'Nobody renders me', content: [paragraph('x')] });
      const res = await download(quick, user.token, doc.id, 'markdown');
      expect(res.status).toBe(503);
      expect(json(res)).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      const queue = new Queue(QUEUE_NAME, {
        connection: redisOptions(quick.config.redisUrl),
        prefix: queuePrefixOf(quick.config, {}),
      });
      try {
        expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
      } finally {
        await queue.close();
      }
    } finally {
      await quick.stop();
    }
  });

  it('retries a job whose first attempt failed (the document service answered 503 once)', async () => {
    let contentCalls = 0;
    const documentUrl = new URL(stack.config.urls.document);
    // In front of the real document service: the first content request fails, the rest pass through.
    const flaky = createServer((req, res) => {
      if (req.url?.endsWith('/content')) contentCalls += 1;
      if (req.url?.endsWith('/content') && contentCalls === 1) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"success":false}');
        return;
      }
      const upstream = httpRequest(
        { host: documentUrl.hostname, port: documentUrl.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    servers.push(flaky);
    await startWorker(await listen(flaky));
    const doc = await createDocument(stack, owner, {
      title: 'Second time lucky',
      content: [paragraph('retried body')],
    });
    const res = await download(stack, owner.token, doc.id, 'markdown');
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe('# Second time lucky\n\nretried body\n');
    expect(contentCalls).toBe(2);
  });

  it('loses no export when its worker is killed mid-job: another worker takes the stalled job', async () => {
    // The first worker reads the document from a server that never answers, so it is surely
    // in the middle of the job when it is killed.
    let taken!: () => void;
    const jobTaken = new Promise<void>((resolve) => {
      taken = resolve;
    });
    const hanging = createServer(() => taken());
    servers.push(hanging);
    const hangingUrl = await listen(hanging);

    const child = spawnWorker({ ...stack.config, urls: { ...stack.config.urls, document: hangingUrl } });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`the worker process exited (${code})`)));
      });
      const doc = await createDocument(stack, owner, { title: 'Survivor', content: [paragraph('still here')] });
      const pending = download(stack, owner.token, doc.id, 'pdf');
      await jobTaken;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;

      await startWorker();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(await pdfText(res.body)).toContain('still here');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

describe('Redis going away', () => {
  it('answers 503 within the timeout instead of hanging', async () => {
    // Redis behind a TCP relay the test can cut.
    const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const sockets = new Set<Socket>();
    const relay = createNetServer((client) => {
      const upstream = connect(Number(redis.port || 6379), redis.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayUrl = `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    // Only the export service goes through the relay (the gateway keeps its Redis).
    const cut = await startExportStack({ role: 'api', timeoutMs: 1_500 }, { exportRedisUrl: relayUrl });
    try {
      const user = await signInNew(cut, 'Cut');
      const doc = await createDocument(cut, user, { title: 'No Redis', content: [paragraph('x')] });
      relay.close();
      for (const s of sockets) s.destroy();
      const res = await download(cut, user.token, doc.id, 'markdown');
      expect(res.status).toBe(503);
      expect(json(res)).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      relay.close();
      for (const s of sockets) s.destroy();
      // Its Redis clients give up on close; the queue's keys went nowhere (every write was cut).
      await cut.stop();
    }
  });
});

describe('roles', () => {
  it('serves no export route in the worker role (it only renders)', async () => {
    const worker = await startExport(stack.config, { settings: { ...FAST, role: 'worker' } });
    try {
      const res = await worker.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${randomUUID()}/export?format=pdf`,
      });
      expect(res.statusCode).toBe(404);
      expect((await worker.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await worker.stop();
    }
  });
});

function spawnWorker(config: Config): ChildProcess {
  const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
  return spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      EXPORT_TEST_WORKER: JSON.stringify({ config, settings: workerSettings(), prefix: queuePrefixOf(config, {}) }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}
