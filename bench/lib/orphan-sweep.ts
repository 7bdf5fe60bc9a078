import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createDatabasePool, type DatabasePool, dropDatabasesWithPrefix, ensureDatabase, migrate, sql } from '@wiki/db';
import { LocalStorage, type ObjectStorage } from '@wiki/storage';
import { collector, freePort } from '@wiki/testing';
import { S3Storage } from '../../libs/storage/src/s3.js';
import { sweepOrphans } from '../../services/attachment/src/events/orphan-sweeper.js';
import { attachmentMigrations } from '../../services/attachment/src/service.js';
import { type Part, startPart } from './processes.js';
import { machineInfo, writeResultAndSection } from './report.js';

const MiB = 1024 * 1024;
/** One object in this many has no record: what the sweep finds and removes. */
const ORPHAN_EVERY = 100;

export interface SweepRow {
  driver: 'local' | 's3';
  /** What was measured: the sweep, or (for comparison) the whole listing held at once. */
  what: string;
  objects: number;
  removed: number | null;
  seconds: number;
  /** RSS and V8 heap of this process: before (after a collection), the peak during, after (collected). */
  rssMiB: { before: number; peak: number; after: number };
  heapMiB: { before: number; peak: number; after: number };
}

export interface SweepBenchReport {
  date: string;
  machine: ReturnType<typeof machineInfo>;
  rows: SweepRow[];
}

const round = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

/**
 * Runs `work` while sampling this process's RSS every 10 ms and its heap right after a full
 * collection every 50 ms: the heap peak is what the work keeps alive, not garbage V8 has not got
 * round to (which, sampled without collections, rose with how long a run lasted).
 */
async function measured<T>(work: () => Promise<T>) {
  const gc = collector();
  gc();
  const start = process.memoryUsage();
  const peak = { rss: start.rss, heap: start.heapUsed };
  const rssSampler = setInterval(() => {
    peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
  }, 10);
  const heapSampler = setInterval(() => {
    gc();
    peak.heap = Math.max(peak.heap, process.memoryUsage().heapUsed);
  }, 50);
  const began = Date.now();
  try {
    const result = await work();
    const seconds = (Date.now() - began) / 1000;
    peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
    clearInterval(heapSampler);
    gc();
    const after = process.memoryUsage();
    return {
      result,
      seconds,
      rssMiB: { before: round(start.rss), peak: round(peak.rss), after: round(after.rss) },
      heapMiB: { before: round(start.heapUsed), peak: round(peak.heap), after: round(after.heapUsed) },
    };
  } finally {
    clearInterval(rssSampler);
    clearInterval(heapSampler);
  }
}

/** Keys as the service makes them: 100 attachments a document, 10 documents a workspace. */
function keyAt(i: number): string {
  const ws = `00000000-0000-4000-8000-${String(Math.floor(i / 1000)).padStart(12, '0')}`;
  const doc = `00000000-0000-4000-9000-${String(Math.floor(i / 100)).padStart(12, '0')}`;
  return `workspaces/${ws}/documents/${doc}/${randomUUID()}/file.bin`;
}

/** Stores `count` one-byte objects, `concurrency` at a time; their keys. */
async function fill(storage: ObjectStorage, count: number, concurrency: number, log: (m: string) => void) {
  const keys = Array.from({ length: count }, (_, i) => keyAt(i));
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < keys.length) {
        const key = keys[next++] as string;
        await storage.put(key, Readable.from([Buffer.from('x')]), 1, 'application/octet-stream');
        if (next % 20_000 === 0) log(`orphan sweep: ${next} objects stored`);
      }
    }),
  );
  return keys;
}

/** Records for every key but one in ORPHAN_EVERY, 10,000 rows a statement. */
async function record(pool: DatabasePool, keys: string[]) {
  const known = keys.filter((_, i) => i % ORPHAN_EVERY !== 0);
  for (let at = 0; at < known.length; at += 10_000) {
    const part = known.slice(at, at + 10_000);
    await pool.query(sql.unsafe`
      INSERT INTO attachments (id, workspace_id, document_id, storage_key, file_name, file_size, mime_type, sha256, uploaded_by)
      SELECT gen_random_uuid(), split_part(k, '/', 2)::uuid, split_part(k, '/', 4)::uuid, k, 'file.bin', 1,
        'application/octet-stream', '', gen_random_uuid()
      FROM unnest(${sql.array(part, 'text')}) AS k`);
  }
  return keys.length - known.length;
}

/** What the local driver did before: the whole tree read at once (readdir, recursive). */
async function wholeListing(root: string): Promise<number> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).length;
}

export interface OrphanSweepBenchOptions {
  pgUrl: string;
  name: string;
  objects: number[];
  drivers: Array<'local' | 's3'>;
  s3Concurrency: number;
  log: (message: string) => void;
}

/**
 * The orphan sweep over stores of `objects` objects (1 in 100 without a record), on the local
 * driver and on S3 (s3rver in a process of its own), measured in this process: the sweep streams
 * the listing and checks 500 keys at a time, so its memory should not grow with the store.
 */
export async function benchOrphanSweep(options: OrphanSweepBenchOptions): Promise<SweepBenchReport> {
  const { log } = options;
  const rows: SweepRow[] = [];
  const dbUrl = `${options.pgUrl.replace(/\/$/, '')}/${options.name}_attachment`;
  const work = mkdtempSync(join(tmpdir(), `${options.name}-sweep-`));
  const spoolDir = join(work, 'spool');
  const parts: Part[] = [];
  await ensureDatabase(dbUrl);
  const pool = await createDatabasePool(dbUrl, { maximumPoolSize: 4 });
  try {
    await migrate(dbUrl, [attachmentMigrations]);
    for (const driver of options.drivers) {
      for (const count of options.objects) {
        await pool.query(sql.unsafe`TRUNCATE attachments`);
        let storage: ObjectStorage;
        let localRoot: string | undefined;
        if (driver === 'local') {
          localRoot = join(work, `objects-${count}`);
          storage = new LocalStorage(localRoot);
        } else {
          const port = await freePort();
          const dir = join(work, `s3-${count}`);
          await mkdir(dir, { recursive: true });
          // s3rver makes its continuation tokens with DES, which OpenSSL 3 keeps in its legacy
          // provider: without it every listing past the first 1,000 keys fails (a 500).
          const s3 = await startPart(
            's3rver',
            new URL('../s3rver.mjs', import.meta.url).pathname,
            { PORT: String(port), S3RVER_DIR: dir },
            port,
            '/',
            ['--openssl-legacy-provider'],
          );
          parts.push(s3);
          storage = new S3Storage({
            endpoint: s3.url,
            bucket: 'sweep',
            accessKey: 'S3RVER',
            secretKey: 'S3RVER',
            region: 'us-east-1',
          });
        }
        await storage.prepare();
        log(`orphan sweep: storing ${count} objects (${driver})`);
        const keys = await fill(storage, count, driver === 'local' ? 64 : options.s3Concurrency, log);
        const orphans = await record(pool, keys);
        keys.length = 0;
        // Everything is older than the grace period by then.
        const later = new Date(Date.now() + 2 * 60 * 60_000);
        log(`orphan sweep: sweeping ${count} objects (${driver}), ${orphans} without a record`);
        const { result: swept, ...cost } = await measured(() => sweepOrphans(pool, storage, spoolDir, { now: later }));
        rows.push({ driver, what: 'sweep', objects: count, removed: swept.objects, ...cost });
        log(`orphan sweep: ${JSON.stringify(rows[rows.length - 1])}`);
        // After the sweep: a run right after reading the whole tree at once peaked ~40 MiB higher (V8
        // had grown its young generation for that burst), which would have been charged to the sweep.
        if (localRoot) {
          const root = localRoot;
          const { result: listed, ...cost } = await measured(() => wholeListing(root));
          rows.push({
            driver,
            what: 'whole listing at once (the local driver before)',
            objects: listed,
            removed: null,
            ...cost,
          });
        }
        if (localRoot) rmSync(localRoot, { recursive: true, force: true });
        await parts.pop()?.stop();
      }
    }
  } finally {
    await pool.end();
    for (const part of parts) await part.stop();
    await dropDatabasesWithPrefix(options.pgUrl, options.name).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
  return { date: new Date().toISOString(), machine: machineInfo(), rows };
}

const START = '<!-- bench:orphan-sweep:start -->';
const END = '<!-- bench:orphan-sweep:end -->';

/** Writes bench/results/<date>-orphan-sweep.json and the section of docs/PERFORMANCE.md. */
export function writeOrphanSweepReport(report: SweepBenchReport, resultsFile: string, markdownFile: string) {
  const m = report.machine;
  const rows = report.rows.map(
    (r) =>
      `| ${r.driver} | ${r.what} | ${r.objects} | ${r.removed ?? '–'} | ${r.seconds.toFixed(1)} | ${r.rssMiB.before} / ${r.rssMiB.peak} / ${r.rssMiB.after} | ${(r.rssMiB.peak - r.rssMiB.before).toFixed(1)} | ${r.heapMiB.before} / ${r.heapMiB.peak} / ${r.heapMiB.after} | ${(r.heapMiB.peak - r.heapMiB.before).toFixed(1)} |`,
  );
  const section = [
    START,
    `## Attachment orphan sweep (latest run: ${report.date})`,
    '',
    `\`npm run bench -- --only=orphan-sweep\` (bench/lib/orphan-sweep.ts). Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}.`,
    `A store of one-byte objects laid out as the service keys them, one in ${ORPHAN_EVERY} without a record; the sweep (the`,
    "service's own `sweepOrphans`, run in the bench process) lists the store as a stream and checks 500 keys at a time",
    "against the records, removing the orphans. S3 is s3rver in a process of its own (with OpenSSL's legacy provider: its",
    'continuation tokens use DES). Memory is this process: before (after a full collection), the peak during (RSS sampled',
    'every 10 ms; the heap right after a full collection every 50 ms, so it shows what the work keeps alive), after',
    '(collected again). RSS does not shrink back after the store was filled, so its "before" is often its peak. The',
    'second local row of each size reads the whole listing at once (after the sweep: the',
    'orphans are gone), as the local driver did before, for comparison.',
    '',
    '| driver | what | objects | removed | s | RSS MiB before / peak / after | RSS peak − before | heap MiB before / peak / after | heap peak − before |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
  writeResultAndSection(report, resultsFile, markdownFile, section, [START, END]);
}
