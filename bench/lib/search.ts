import { randomUUID } from 'node:crypto';
import { createDatabasePool, createPreparedPool, sql } from '@wiki/db';
import type { IndexedPassage } from '../../services/search/src/engines/engine.js';
import { createPostgresEngine } from '../../services/search/src/engines/postgres.js';
import { corpus, passages } from './search-corpus.js';

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
  /** The comment and attachment texts written after the documents (timed apart from them). */
  passages: PassageIndexing;
}

export interface PassageIndexing {
  comments: number;
  attachments: number;
  /** Characters of all the attachment texts. */
  attachmentChars: number;
  seconds: number;
  passagesPerSec: number;
  slowestBatchMs: number;
  tableMiB: number;
  indexMiB: number;
}

/** The generated documents' creators: a few, so an authorId filter keeps one document in AUTHORS. */
export const AUTHORS = 8;
/** The documents' updatedAt spreads evenly over the year before the fill. */
const UPDATED_SPREAD_MS = 365 * 24 * 3_600_000;

/** How far back document `i` was last updated: a golden-ratio spread, even over the year at any count. */
const updatedAgo = (i: number) => Math.floor(((i * 0.618_033_988_75) % 1) * UPDATED_SPREAD_MS);

/**
 * Writes `count` generated documents of `workspaceId` straight into the search database through
 * the Postgres engine's bulk upsert (what the indexer and the reindex call), `batch` at a time with
 * two batches in flight: the lexemes are made in this process while Postgres writes the other.
 * Going through the document service would measure document creation (benched on its own) and
 * take minutes for 100,000 documents. Each document has one of AUTHORS creators and an updatedAt
 * within the last year (what the filters narrow). Then the passages of search-corpus.ts (comments
 * on one document in five, a 20,000-character attachment text on one in twenty) the same way, timed
 * apart so the documents' figures stay comparable with runs before passages existed.
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
    const authors = Array.from({ length: AUTHORS }, () => randomUUID());
    const ids: string[] = Array.from({ length: count }, () => randomUUID());
    const version = Date.now();
    /** Runs `write` over documents 0..total in batches, two in flight; answers seconds and the slowest batch. */
    const inBatches = async (what: string, total: number, write: (from: number, to: number) => Promise<void>) => {
      let next = 0;
      let done = 0;
      let slowestBatchMs = 0;
      const started = performance.now();
      const worker = async () => {
        while (next < total) {
          const from = next;
          next = Math.min(total, next + batch);
          const to = next;
          const sent = performance.now();
          await write(from, to);
          slowestBatchMs = Math.max(slowestBatchMs, performance.now() - sent);
          const before = done;
          done += to - from;
          if (Math.floor(done / 10_000) !== Math.floor(before / 10_000)) log(`indexed ${what} ${done} of ${total}`);
        }
      };
      await Promise.all([worker(), worker()]);
      return { seconds: (performance.now() - started) / 1000, slowestBatchMs };
    };

    const documents = await inBatches('documents', count, async (from, to) => {
      const docs = [];
      for (let i = from; i < to; i++) {
        const { title, text } = make(i);
        docs.push({
          id: ids[i],
          workspaceId,
          parentId: null,
          title,
          icon: null,
          plainText: text,
          archived: false,
          createdBy: authors[i % AUTHORS],
          updatedAt: version - updatedAgo(i),
          version,
        });
      }
      await engine.upsert(docs);
    });

    const texts = passages();
    let comments = 0;
    let attachments = 0;
    let attachmentChars = 0;
    log(`indexing the comments and attachment texts of ${count} documents`);
    // Batches of documents' passages: a batch of 500 documents holds ~150 comments and 25 attachments.
    const passageRun = await inBatches('the passages of documents', count, async (from, to) => {
      const rows: IndexedPassage[] = [];
      for (let i = from; i < to; i++) {
        const { comments: said, attachment } = texts(i);
        for (const text of said)
          rows.push({
            id: randomUUID(),
            kind: 'comment',
            documentId: ids[i],
            workspaceId,
            threadId: randomUUID(),
            text,
            version,
          });
        if (attachment !== null)
          rows.push({
            id: randomUUID(),
            kind: 'attachment',
            documentId: ids[i],
            workspaceId,
            threadId: null,
            text: attachment,
            version,
          });
        comments += said.length;
        attachments += attachment === null ? 0 : 1;
        attachmentChars += attachment?.length ?? 0;
      }
      await engine.upsertPassages(rows);
    });

    await pool.query(sql.unsafe`VACUUM ANALYZE search_documents`);
    await pool.query(sql.unsafe`VACUUM ANALYZE search_passages`);
    const sizes = await pool.one(sql.unsafe`
      SELECT pg_total_relation_size('search_documents')::float8 AS total,
             pg_table_size('search_documents')::float8 AS table_bytes,
             pg_indexes_size('search_documents')::float8 AS index_bytes,
             (SELECT count(*) FROM search_documents)::float8 AS rows,
             pg_table_size('search_passages')::float8 AS passage_table_bytes,
             pg_indexes_size('search_passages')::float8 AS passage_index_bytes`);
    const mib = (bytes: unknown) => Math.round((Number(bytes) / 2 ** 20) * 10) / 10;
    const written = comments + attachments;
    return {
      documents: count,
      seconds: Math.round(documents.seconds * 100) / 100,
      documentsPerSec: Math.round(count / documents.seconds),
      slowestBatchMs: Math.round(documents.slowestBatchMs),
      bytesPerDocument: Math.round(Number(sizes.total) / Math.max(1, Number(sizes.rows))),
      tableMiB: mib(sizes.table_bytes),
      indexMiB: mib(sizes.index_bytes),
      passages: {
        comments,
        attachments,
        attachmentChars,
        seconds: Math.round(passageRun.seconds * 100) / 100,
        passagesPerSec: Math.round(written / passageRun.seconds),
        slowestBatchMs: Math.round(passageRun.slowestBatchMs),
        tableMiB: mib(sizes.passage_table_bytes),
        indexMiB: mib(sizes.passage_index_bytes),
      },
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
