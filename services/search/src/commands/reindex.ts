import type { DatabasePool } from '@wiki/db';
import type { ServiceClient, StreamedDocument } from '@wiki/service-client';
import {
  ALL_WORKSPACES,
  clearProgress,
  findProgress,
  type ReindexProgress,
  saveProgress,
  withScopeLock,
} from '../db/reindex-progress.js';
import type { SearchEngine } from '../engines/engine.js';
import { indexedDocument } from '../engines/indexed-document.js';
import { type PassageCounts, reindexPassages } from './reindex-passages.js';

/** Where the documents come from: the document service's stream (libs/service-client `streamDocumentsFrom`). */
export type DocumentSource = (from: { workspaceId?: string; after?: string }) => AsyncIterable<StreamedDocument>;

export interface ReindexOptions {
  engine: SearchEngine;
  /** The search database (checkpoint). */
  pool: DatabasePool;
  documents: DocumentSource;
  /** Asks the document service whether a document exists (its `GET /internal/documents/{id}`). */
  peers: ServiceClient;
  /** One workspace; every workspace when absent. */
  workspaceId?: string;
  /** Forget the checkpoint of an earlier, unfinished run and start from the first document. */
  restart?: boolean;
  /** Documents per engine write and per checkpoint. */
  batchSize?: number;
  /** Stop (checkpoint kept) after this many batches of this run: how an interruption is tested. */
  stopAfterBatches?: number;
  /** Stop after the batch in hand, checkpoint kept (Ctrl-C). */
  signal?: AbortSignal;
  onProgress?: (progress: ReindexProgress) => void;
}

export interface ReindexSummary {
  scope: string;
  /** The id the run went on after (an earlier run's checkpoint), or null from the start. */
  resumedAfter: string | null;
  /** False when stopped early: the checkpoint stays for the next run. */
  finished: boolean;
  /** This run's and earlier unfinished runs' together, for the scope. */
  batches: number;
  indexed: number;
  removed: number;
  /** Comments' and attachments' texts, rebuilt once the documents are (zeros when stopped before). */
  comments: PassageCounts;
  attachments: PassageCounts;
}

export const REINDEX_BATCH_SIZE = 200;
/** Index ids asked at once while sweeping. */
const SWEEP_PAGE = 1_000;
/** Document-service look-ups at once for entries the stream did not send. */
const LOOKUPS_AT_ONCE = 8;

export class ReindexBusyError extends Error {
  override name = 'ReindexBusyError';
}

/**
 * Rebuilds the index of one workspace, or of all, from the document service: every document the
 * stream sends is upserted (version: its updatedAt, so a write the consumers made since is never
 * undone), and every index entry the stream skipped is removed when the document service confirms
 * its document is gone. The stream and the index are both in id order, so after each batch the
 * entries between the previous checkpoint and the batch's last id are exactly the ones to check;
 * the checkpoint then moves on. An entry the stream skipped whose document exists was created
 * behind the stream while it ran (the events index it); it stays. Running twice gives the same index.
 * Then the comments' and attachments' texts, from their services, the same way (reindex-passages.ts).
 */
export async function reindex(options: ReindexOptions): Promise<ReindexSummary> {
  const scope = options.workspaceId ?? ALL_WORKSPACES;
  const held = await withScopeLock(options.pool, scope, () => run(options, scope));
  if (!held) throw new ReindexBusyError(`another reindex of ${describeScope(scope)} is running`);
  return held.value;
}

export function describeScope(scope: string): string {
  return scope === ALL_WORKSPACES ? 'every workspace' : `workspace ${scope}`;
}

async function run(options: ReindexOptions, scope: string): Promise<ReindexSummary> {
  const { engine, pool, workspaceId } = options;
  const batchSize = options.batchSize ?? REINDEX_BATCH_SIZE;
  if (options.restart) await clearProgress(pool, scope);
  const earlier = await findProgress(pool, scope);
  const progress: ReindexProgress = earlier ?? {
    scope,
    lastId: '',
    startedAt: new Date().toISOString(),
    batches: 0,
    indexed: 0,
    removed: 0,
  };
  const resumedAfter = earlier?.lastId ?? null;
  let cursor = resumedAfter ?? undefined;
  let batchesThisRun = 0;

  const sweep = async (after: string | undefined, upTo: string | undefined, kept: ReadonlySet<string>) => {
    const gone = await absentFromDocuments(options, await indexIdsBetween(engine, workspaceId, after, upTo, kept));
    if (gone.length) await engine.remove(gone);
    return gone.length;
  };

  let batch: StreamedDocument[] = [];
  const flush = async (): Promise<void> => {
    const last = batch.at(-1);
    if (!last) return;
    await engine.upsert(batch.map((doc) => indexedDocument(doc, Date.parse(doc.updatedAt))));
    const removed = await sweep(cursor, last.id, new Set(batch.map((d) => d.id)));
    cursor = last.id;
    progress.lastId = last.id;
    progress.batches += 1;
    progress.indexed += batch.length;
    progress.removed += removed;
    await saveProgress(pool, progress);
    batch = [];
    batchesThisRun += 1;
    options.onProgress?.({ ...progress });
  };
  const stopping = () =>
    options.signal?.aborted === true ||
    (options.stopAfterBatches !== undefined && batchesThisRun >= options.stopAfterBatches);

  const stream = options.documents({ workspaceId, after: cursor });
  for await (const doc of stream) {
    batch.push(doc);
    if (batch.length < batchSize) continue;
    await flush();
    // Leaving the loop closes the stream (the generator's return aborts the request).
    if (stopping()) return summary(progress, resumedAfter, false);
  }
  await flush();

  // Everything the index holds after the last document sent: no document is left to claim it.
  progress.removed += await sweep(cursor, undefined, new Set());
  await saveProgress(pool, progress);
  // The passages whole, after the documents: a run stopped among them does them again from the start.
  const passages = await reindexPassages(engine, options.peers, workspaceId);
  await clearProgress(pool, scope);
  return summary(progress, resumedAfter, true, passages);
}

const NONE: PassageCounts = { indexed: 0, removed: 0 };

function summary(
  progress: ReindexProgress,
  resumedAfter: string | null,
  finished: boolean,
  passages = { comments: NONE, attachments: NONE },
): ReindexSummary {
  const { scope, batches, indexed, removed } = progress;
  return { scope, resumedAfter, finished, batches, indexed, removed, ...passages };
}

/** Index ids in (after, upTo] (to the end when upTo is absent) that are not in `kept`. */
async function indexIdsBetween(
  engine: SearchEngine,
  workspaceId: string | undefined,
  after: string | undefined,
  upTo: string | undefined,
  kept: ReadonlySet<string>,
): Promise<string[]> {
  const found: string[] = [];
  let from = after;
  for (;;) {
    const page = await engine.listIds({ workspaceId, after: from, limit: SWEEP_PAGE });
    for (const id of page) {
      if (upTo !== undefined && id > upTo) return found;
      if (!kept.has(id)) found.push(id);
    }
    const last = page.at(-1);
    if (!last || page.length < SWEEP_PAGE) return found;
    from = last;
  }
}

/** The ids whose document the document service no longer has (404), a few look-ups at a time. */
async function absentFromDocuments(options: ReindexOptions, ids: readonly string[]): Promise<string[]> {
  const gone: string[] = [];
  for (let i = 0; i < ids.length; i += LOOKUPS_AT_ONCE) {
    const chunk = ids.slice(i, i + LOOKUPS_AT_ONCE);
    const answers = await Promise.all(
      chunk.map((id) => options.peers.get('document', `/internal/documents/${encodeURIComponent(id)}`)),
    );
    chunk.forEach((id, n) => {
      if (answers[n] === null) gone.push(id);
    });
  }
  return gone;
}
