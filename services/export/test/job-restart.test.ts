import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool } from '@wiki/db';
import { createStorage } from '@wiki/storage';
import {
  createDocument,
  paragraph,
  readOutbox,
  recordingLogger,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../src/app.js';
import { type RunningWorker, startExportWorker } from '../src/queue/worker.js';
import { DEFAULT_EXPORT_SETTINGS } from '../src/settings.js';
import { JOB_FILES_PREFIX } from '../src/tree/export-tree.js';
import { FAST, startExportStack } from './helpers.js';
import { waitForJob } from './jobs-helpers.js';

let stack: Stack;
let owner: SignedInUser;
let pool: DatabasePool;
const workers: RunningWorker[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  // The API alone: the test brings its workers.
  stack = await startExportStack({ role: 'api' });
  owner = await signInNew(stack, 'Owner');
  pool = await createDatabasePool(stack.config.databaseUrls.export);
});

afterAll(async () => {
  for (const worker of workers) await worker.stop().catch(() => undefined);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await pool?.end();
  await stack?.stop();
});

/** In front of the document service: content requests wait until `release()` (a worker stuck mid-job). */
async function holdingProxy(target: string) {
  const upstream = new URL(target);
  const held: Array<() => void> = [];
  let seen = 0;
  let holding = true;
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  };
  const server = createServer((req, res) => {
    if (holding && req.url?.endsWith('/content')) {
      seen += 1;
      held.push(() => pass(req, res));
    } else pass(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    release() {
      holding = false;
      for (const go of held.splice(0)) go();
    },
  };
}

async function startWorker(documentUrl: string, logger = recordingLogger()): Promise<RunningWorker> {
  const config: Config = { ...stack.config, urls: { ...stack.config.urls, document: documentUrl } };
  const worker = await startExportWorker({
    config,
    settings: { ...DEFAULT_EXPORT_SETTINGS, ...FAST, role: 'worker' },
    prefix: queuePrefixOf(stack.config, {}),
    logger,
    pool,
  });
  workers.push(worker);
  return worker;
}

describe('a job that cannot be done', () => {
  // First in the file: no worker runs yet, so the document is gone before the job starts.
  it('fails once, says why without internals, and tells of it', async () => {
    const doc = await createDocument(stack, owner, { title: 'Soon gone', content: [paragraph('x')] });
    const res = await stack.request('POST', `/api/v1/documents/${doc.id}/export`, {
      token: owner.token,
      body: { format: 'html' },
    });
    expect(res.status).toBe(202);
    const { jobId } = res.body.data;
    expect((await stack.request('GET', `/api/v1/jobs/${jobId}`, { token: owner.token })).body.data).toMatchObject({
      status: 'queued',
      progress: { done: 0, total: 0 },
      result: null,
    });
    expect((await stack.request('DELETE', `/api/v1/documents/${doc.id}`, { token: owner.token })).status).toBeLessThan(
      300,
    );
    await startWorker(stack.config.urls.document);
    const job = await waitForJob(stack, owner, jobId, 30_000);
    expect(job).toMatchObject({ status: 'failed', error: 'Document not found', result: null });
    const download = await stack.request('GET', `/api/v1/jobs/${jobId}/download`, { token: owner.token });
    expect(download.status).toBe(409);
    expect(download.body.error.reason).toBe('JOB_NOT_FINISHED');
    await expect
      .poll(
        async () =>
          (await readOutbox(pool, 'job.finished')).filter((e) => e.data.id === jobId).map((e) => e.data.status),
        {
          timeout: 10_000,
        },
      )
      .toEqual(['failed']);
  });
});

describe('a job whose worker stops answering', () => {
  it('is run again by another worker, and the first run, coming back, changes nothing', async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    const doc = await createDocument(stack, owner, { title: 'Twice', content: [paragraph('once only')] });
    const proxy = await holdingProxy(stack.config.urls.document);
    const firstLog = recordingLogger();
    const first = await startWorker(proxy.url, firstLog);
    const res = await stack.request('POST', `/api/v1/documents/${doc.id}/export`, {
      token: owner.token,
      body: { format: 'markdown' },
    });
    expect(res.status).toBe(202);
    const { jobId } = res.body.data;
    // The first worker is in the middle of the job (waiting for the content), then goes silent:
    // its lock is no longer renewed, as when its process dies.
    await expect.poll(() => proxy.seen(), { timeout: 15_000 }).toBe(1);
    await first.jobWorker?.close(true);

    await startWorker(stack.config.urls.document);
    const job = await waitForJob(stack, owner, jobId, 30_000);
    expect(job).toMatchObject({ status: 'done', progress: { done: 1, total: 1 } });

    // The first run comes back, renders and finds the job finished: its file goes, the result stays.
    proxy.release();
    await expect
      .poll(() => firstLog.entries.some((e) => e.msg === 'a job finished twice; the later result was dropped'), {
        timeout: 15_000,
      })
      .toBe(true);
    const again = (await stack.request('GET', `/api/v1/jobs/${jobId}`, { token: owner.token })).body.data;
    expect(again.result).toEqual(job.result);
    expect(again.finishedAt).toBe(job.finishedAt);
    const storage = await createStorage(stack.config);
    const files: string[] = [];
    for await (const object of storage.list(`${JOB_FILES_PREFIX}${jobId}/`)) files.push(object.key);
    expect(files).toHaveLength(1);
    const finished = (await readOutbox(pool, 'job.finished')).filter((e) => e.data.id === jobId);
    expect(finished).toHaveLength(1);
  });
});
