import { type ChildProcess, spawn } from 'node:child_process';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { createDatabasePool, withAdvisoryLock } from '@wiki/db';
import { createStorage } from '@wiki/storage';
import {
  createDocument,
  eventually,
  paragraph,
  rssGrowthDuring,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../src/app.js';
import { EXPIRY_SWEEP_LOCK, sweepExpiredFiles } from '../src/files/expired-files.js';
import { QUEUE_NAME, redisOptions } from '../src/queue/jobs.js';
import { UserSlots } from '../src/queue/user-slots.js';
import { type RunningWorker, startExportWorker } from '../src/queue/worker.js';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings } from '../src/settings.js';
import { docxParts, download, exportFiles, FAST, startExportStack } from './helpers.js';

const MiB = 1024 * 1024;
const quiet = { info() {}, warn() {}, error() {} };

/** The API alone: each test brings the workers it needs (in this process or in one of their own). */
let stack: Stack;
const workers: RunningWorker[] = [];
const children: ChildProcess[] = [];

const workerSettings = (): ExportSettings => ({ ...DEFAULT_EXPORT_SETTINGS, ...FAST, role: 'worker' });

async function startWorker(): Promise<RunningWorker> {
  const worker = await startExportWorker({
    config: stack.config,
    settings: workerSettings(),
    prefix: queuePrefixOf(stack.config, {}),
    logger: quiet,
  });
  workers.push(worker);
  return worker;
}

/** A worker in a process of its own (test/worker-process.ts), whose images are `noiseImages` PNGs. */
async function startWorkerProcess(
  config: Config,
  settings: ExportSettings,
  noiseImages?: { width: number; height: number },
) {
  const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      EXPORT_TEST_WORKER: JSON.stringify({
        config,
        settings,
        prefix: queuePrefixOf(config, {}),
        noiseImages,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the worker process exited (${code})`)));
  });
}

beforeAll(async () => {
  stack = await startExportStack({ role: 'api', timeoutMs: 25_000 });
});

/** Each test starts with no finished file in storage (one a test left behind is not the next one's). */
beforeEach(async () => {
  const storage = await createStorage(stack.config);
  for (const key of await exportFiles(stack.config)) await storage.delete(key);
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await stack?.stop();
});

/** What Redis was asked to do on this stack's keys while `work` ran (MONITOR), argument by argument. */
async function redisTrafficDuring<T>(config: Config, work: () => Promise<T>): Promise<{ result: T; args: string[] }> {
  const monitor = await new Redis(config.redisUrl).monitor();
  const args: string[] = [];
  monitor.on('monitor', (_time: string, command: string[]) => {
    if (command.some((arg) => arg.includes(config.dbPrefix))) args.push(...command);
  });
  try {
    return { result: await work(), args };
  } finally {
    monitor.disconnect();
  }
}

describe('finished files', () => {
  it('a 22 MiB Word file goes through storage: the API grows by far less than the file, Redis never carries it, and it is deleted once sent', async () => {
    // The worker apart, so that this process (gateway and export API) holds only what the API does.
    // Its images: 1600 × 1600 pixels of noise, ~7.3 MiB each, embedded as they are. Zipping them
    // keeps its event loop busy for seconds: the default job lock, not the tests' short one.
    await startWorkerProcess(
      stack.config,
      { ...DEFAULT_EXPORT_SETTINGS, role: 'worker' },
      { width: 1600, height: 1600 },
    );
    const user = await signInNew(stack, 'Big');
    const image = (n: number) => ({
      type: 'image',
      props: { url: `/api/v1/attachments/file?url=workspaces%2Fw%2Fdocuments%2Fd%2F${n}.png`, caption: `n${n}` },
    });
    const doc = await createDocument(stack, user, {
      title: 'Photo album',
      content: [paragraph('three large pictures'), image(1), image(2), image(3)],
    });
    // A small export first, so that the measurement sees the steady state, not the first use of the code.
    expect((await download(stack, user.token, doc.id, 'markdown')).status).toBe(200);

    // node:http at a bounded pace (5 ms after every 256 KiB): an API that did not wait for its
    // reader, or held the file, would pile it up in this process.
    const read = async () => {
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(
          `${stack.gatewayUrl}/api/v1/documents/${doc.id}/export?format=docx`,
          { headers: { authorization: `Bearer ${user.token}` } },
          resolve,
        ).on('error', reject),
      );
      let length = 0;
      let sincePause = 0;
      for await (const chunk of res as AsyncIterable<Buffer>) {
        length += chunk.length;
        sincePause += chunk.length;
        if (sincePause >= MiB / 4) {
          sincePause = 0;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      return { status: res.statusCode, length, contentLength: Number(res.headers['content-length']) };
    };

    const down = await rssGrowthDuring(read);
    expect(down.result.status).toBe(200);
    expect(down.result.length).toBeGreaterThan(20 * MiB);
    expect(down.result.contentLength).toBe(down.result.length);
    // Buffers are where the file's bytes would be held: under half of it. The RSS also moves with
    // the allocator and whatever else this process does under load (a CI run reached 16.2 MiB with
    // the reader paced as here): it stays under the file's size.
    expect(down.bufferGrowth).toBeLessThan(11 * MiB);
    expect(down.growth).toBeLessThan(20 * MiB);

    // Once more while watching Redis (apart: the watch itself costs this process memory): ids, keys
    // and job records went through it, no argument came near the file's size.
    const watched = await redisTrafficDuring(stack.config, read);
    expect(watched.result.status).toBe(200);
    expect(watched.args.length).toBeGreaterThan(0);
    expect(Math.max(...watched.args.map((a) => a.length))).toBeLessThan(64 * 1024);
    // Gone from storage once sent.
    await eventually(async () => expect(await exportFiles(stack.config)).toEqual([]));
  }, 120_000);

  it('holds a Word file whose parts all arrived (the stored file is the rendered one)', async () => {
    await startWorker();
    const user = await signInNew(stack, 'Small');
    const doc = await createDocument(stack, user, { title: 'Small', content: [paragraph('a few words')] });
    const res = await download(stack, user.token, doc.id, 'docx');
    expect(res.status).toBe(200);
    expect(await docxParts(res.body)).toContain('word/document.xml');
    await eventually(async () => expect(await exportFiles(stack.config)).toEqual([]));
  });

  it('a file nobody collected is removed by the expiry sweep once older than EXPORT_FILE_TTL_MS; one replica sweeps at a time', async () => {
    const storage = await createStorage(stack.config);
    const key = 'exports/11111111-2222-4333-8444-555555555555/export.pdf';
    await storage.put(key, Readable.from([Buffer.from('%PDF-1.7')]), 8, 'application/pdf');
    const pool = await createDatabasePool(stack.config.databaseUrls.export, { maximumPoolSize: 2 });
    try {
      // Younger than the TTL: kept.
      expect(await sweepExpiredFiles(pool, storage, { ttlMs: 60_000 })).toBe(0);
      expect(await exportFiles(stack.config)).toEqual([key]);
      const later = new Date(Date.now() + 120_000);
      // Another replica sweeping: this one leaves the files alone.
      const held = await withAdvisoryLock(pool, EXPIRY_SWEEP_LOCK, () =>
        sweepExpiredFiles(pool, storage, { ttlMs: 60_000, now: later }),
      );
      expect(held?.value).toBeNull();
      expect(await exportFiles(stack.config)).toEqual([key]);
      await eventually(async () =>
        expect(await sweepExpiredFiles(pool, storage, { ttlMs: 60_000, now: later })).toBe(1),
      );
      expect(await exportFiles(stack.config)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('exports running at once per user (EXPORT_CONCURRENT_PER_USER, default 3)', () => {
  it('answers the 4th with 429 RATE_LIMITED and Retry-After; another user is not held back; a finished one frees a slot', async () => {
    const [ada, bob] = await Promise.all([signInNew(stack, 'Ada'), signInNew(stack, 'Bob')]);
    const docOf = (user: SignedInUser, n: number) =>
      createDocument(stack, user, { title: `Doc ${n}`, content: [paragraph(`text ${n}`)] });
    const adaDocs = await Promise.all([1, 2, 3, 4].map((n) => docOf(ada, n)));
    const bobDoc = await docOf(bob, 5);
    const queue = new Queue(QUEUE_NAME, {
      connection: redisOptions(stack.config.redisUrl),
      prefix: queuePrefixOf(stack.config, {}),
    });
    try {
      // No worker yet: Ada's three exports wait on the queue, each holding its slot.
      const running = adaDocs.slice(0, 3).map((d) => download(stack, ada.token, d.id, 'markdown'));
      await eventually(async () => expect(await queue.getWaitingCount()).toBe(3));

      const fourth = await download(stack, ada.token, adaDocs[3].id, 'markdown');
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('5');
      expect(JSON.parse(fourth.body.toString())).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
      expect(await queue.getWaitingCount()).toBe(3); // refused before it was queued

      const bobs = download(stack, bob.token, bobDoc.id, 'markdown');
      await eventually(async () => expect(await queue.getWaitingCount()).toBe(4));

      await startWorker();
      for (const res of await Promise.all([...running, bobs])) expect(res.status).toBe(200);
      // Her slots are back: the fourth goes through now.
      const again = await download(stack, ada.token, adaDocs[3].id, 'markdown');
      expect(again.status).toBe(200);
      expect(again.body.toString()).toContain('text 4');
    } finally {
      await queue.close();
    }
  });

  it('gives the slot back and deletes the file when the client went away before its export was ready', async () => {
    const user = await signInNew(stack, 'Leaver');
    const doc = await createDocument(stack, user, { title: 'Left behind', content: [paragraph('x')] });
    const queue = new Queue(QUEUE_NAME, {
      connection: redisOptions(stack.config.redisUrl),
      prefix: queuePrefixOf(stack.config, {}),
    });
    const redis = new Redis(stack.config.redisUrl);
    const slotsOf = () => redis.zcard(`${queuePrefixOf(stack.config, {})}:export:slots:${user.id}`);
    try {
      const request = httpGet(`${stack.gatewayUrl}/api/v1/documents/${doc.id}/export?format=markdown`, {
        headers: { authorization: `Bearer ${user.token}` },
      }).on('error', () => undefined); // the reset is what this test does
      // Jobs of the tests before this one are done and kept as completed: count from here on.
      const completedBefore = await queue.getCompletedCount();
      await eventually(async () => expect(await queue.getWaitingCount()).toBe(1));
      expect(await slotsOf()).toBe(1);
      request.destroy();
      await eventually(async () => expect(await slotsOf()).toBe(0));
      // The job runs anyway; its file finds nobody waiting and goes.
      await startWorker();
      await eventually(async () => expect(await queue.getCompletedCount()).toBe(completedBefore + 1));
      await eventually(async () => expect(await exportFiles(stack.config)).toEqual([]));
    } finally {
      redis.disconnect();
      await queue.close();
    }
  });

  it('counts across API replicas (one Redis), and a slot of a replica that died lapses', async () => {
    const prefix = `${queuePrefixOf(stack.config, {})}:slots-test`;
    const [one, two] = [new Redis(stack.config.redisUrl), new Redis(stack.config.redisUrl)];
    try {
      const replicaA = new UserSlots(one, prefix, 3, 60_000);
      const replicaB = new UserSlots(two, prefix, 3, 60_000);
      const held = [await replicaA.take('u1'), await replicaB.take('u1'), await replicaA.take('u1')];
      expect(held.every((slot) => slot !== null)).toBe(true);
      expect(await replicaB.take('u1')).toBeNull();
      expect(await replicaA.take('u1')).toBeNull();
      expect(await replicaB.take('u2')).not.toBeNull();
      await held[0]?.release();
      await held[0]?.release(); // twice: still one slot given back
      expect(await replicaB.take('u1')).not.toBeNull();
      expect(await replicaA.take('u1')).toBeNull();

      // A replica that takes slots and dies never gives them back: they lapse after their hold.
      const dying = new UserSlots(one, prefix, 3, 300);
      for (let i = 0; i < 3; i++) expect(await dying.take('u3')).not.toBeNull();
      expect(await dying.take('u3')).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await replicaA.take('u3')).not.toBeNull();
    } finally {
      one.disconnect();
      two.disconnect();
    }
  });
});
