import { randomUUID } from 'node:crypto';
import { createDatabasePool, createPreparedPool, sql } from '@wiki/db';
import { createPostgresEngine } from '../../services/search/src/engines/postgres.js';
import { corpus } from './search-corpus.js';

/**
 * The search bench's two measurements that are not autocannon runs: filling the index with
 * generated documents (indexing documents/s) and the time from a write to its being searchable.
 */

export interface IndexingResult {
  documents: number;
  seconds: number;
  documentsPerSec: number;
  /** The longest upsert of one batch (a GIN pending-list merge shows here). */
  slowestBatchMs: number;
  /** Table, indexes and TOAST of search_documents divided by its rows. */
  bytesPerDocument: number;
  tableMiB: number;
  indexMiB: number;
}

/**
 * Writes `count` generated documents of `workspaceId` straight into the search database through
 * the Postgres engine's bulk upsert (what the indexer and the reindex call), `batch` at a time with
 * two batches in flight: the lexemes are made in this process while Postgres writes the other.
 * Going through the document service would measure document creation (benched on its own) and
 * take minutes for 100,000 documents.
 */
export async function fillSearchIndex(
  databaseUrl: string,
  workspaceId: string,
  count: number,
  batch = 500,
  log: (message: string) => void = () => {},
): Promise<IndexingResult> {
  // A batch may wait while Postgres merges the GIN index's pending list: an hour allowed.
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 2, statementTimeoutMs: 3_600_000 });
  // The engine's search pool, never used here (it connects on first use).
  const reads = createPreparedPool(databaseUrl, { warn() {} }, 1);
  try {
    const engine = await createPostgresEngine({ pool, reads, tsConfig: 'simple' });
    const make = corpus();
    let next = 0;
    let done = 0;
    let slowestBatchMs = 0;
    const started = performance.now();
    const version = Date.now();
    const worker = async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + batch);
        const docs = [];
        for (let i = from; i < next; i++) {
          const { title, text } = make(i);
          docs.push({
            id: randomUUID(),
            workspaceId,
            parentId: null,
            title,
            icon: null,
            plainText: text,
            archived: false,
            createdBy: null,
            updatedAt: version,
            version,
          });
        }
        const sent = performance.now();
        await engine.upsert(docs);
        slowestBatchMs = Math.max(slowestBatchMs, performance.now() - sent);
        const before = done;
        done += docs.length;
        if (Math.floor(done / 10_000) !== Math.floor(before / 10_000)) log(`indexed ${done} of ${count}`);
      }
    };
    await Promise.all([worker(), worker()]);
    const seconds = (performance.now() - started) / 1000;
    await pool.query(sql.unsafe`VACUUM ANALYZE search_documents`);
    const sizes = await pool.one(sql.unsafe`
      SELECT pg_total_relation_size('search_documents')::float8 AS total,
             pg_table_size('search_documents')::float8 AS table_bytes,
             pg_indexes_size('search_documents')::float8 AS index_bytes,
             (SELECT count(*) FROM search_documents)::float8 AS rows`);
    const mib = (bytes: unknown) => Math.round((Number(bytes) / 2 ** 20) * 10) / 10;
    return {
      documents: count,
      seconds: Math.round(seconds * 100) / 100,
      documentsPerSec: Math.round(count / seconds),
      slowestBatchMs: Math.round(slowestBatchMs),
      bytesPerDocument: Math.round(Number(sizes.total) / Math.max(1, Number(sizes.rows))),
      tableMiB: mib(sizes.table_bytes),
      indexMiB: mib(sizes.index_bytes),
    };
  } finally {
    await reads.end();
    await pool.end();
  }
}

export interface LagResult {
  ratePerSec: number;
  durationS: number;
  documents: number;
  /** Documents not found within the give-up time (counted, never dropped silently). */
  notFound: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  pollIntervalMs: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Creates documents through the gateway at a fixed rate, each with a word of its own, and polls
 * the search API for that word until the document is among the hits. The lag of a document is
 * from the creation's 201 (the write is committed) to the first search answer holding it; the
 * poll interval bounds how finely it is seen.
 */
export async function measureLag(
  gatewayUrl: string,
  token: string,
  workspaceId: string,
  opts: { ratePerSec: number; durationS: number; pollIntervalMs?: number; giveUpMs?: number },
): Promise<LagResult> {
  const pollIntervalMs = opts.pollIntervalMs ?? 10;
  const giveUpMs = opts.giveUpMs ?? 10_000;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const total = Math.round(opts.ratePerSec * opts.durationS);
  const lags: number[] = [];
  let notFound = 0;
  const tag = randomUUID().slice(0, 8);
  const probe = async (i: number) => {
    const word = `lagprobe${tag}x${i}`;
    const res = await fetch(`${gatewayUrl}/api/v1/documents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        workspaceId,
        parentId: null,
        title: `Lag probe ${i}`,
        content: [
          {
            type: 'paragraph',
            props: {},
            content: [{ type: 'text', text: `A note written under load, found by ${word} alone.`, styles: {} }],
            children: [],
          },
        ],
      }),
    });
    if (res.status !== 201) throw new Error(`creating a lag probe answered ${res.status}: ${await res.text()}`);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const written = performance.now();
    const url = `${gatewayUrl}/api/v1/documents/search?workspaceId=${workspaceId}&query=${word}&limit=5`;
    while (performance.now() - written < giveUpMs) {
      const found = await fetch(url, { headers });
      if (found.status !== 200)
        throw new Error(`searching a lag probe answered ${found.status}: ${await found.text()}`);
      const body = (await found.json()) as { data: Array<{ id: string }> };
      if (body.data.some((hit) => hit.id === id)) {
        lags.push(performance.now() - written);
        return;
      }
      await new Promise((r) => setTimeout(r, pollIntervalMs));
    }
    notFound++;
  };
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    // A fixed schedule: creation i starts at i / rate seconds, however long the others take.
    const due = started + (i * 1000) / opts.ratePerSec;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    running.push(probe(i));
  }
  await Promise.all(running);
  const sorted = [...lags].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    ratePerSec: opts.ratePerSec,
    durationS: opts.durationS,
    documents: total,
    notFound,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
    pollIntervalMs,
  };
}
