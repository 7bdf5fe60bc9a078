import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { redactUrl } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createServiceClient, type ServiceClient, streamDocumentsFrom } from '@wiki/service-client';
import {
  createDocument,
  createWorkspace,
  eventually,
  paragraph,
  pdfWithText,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { ReindexBusyError, type ReindexOptions, reindex } from '../src/commands/reindex.js';
import { findProgress } from '../src/db/reindex-progress.js';
import type { SearchEngine, SearchHit } from '../src/engines/engine.js';
import { createSearchEngine } from '../src/engines/index.js';
import { startThread, uploadFile } from './helpers.js';

/**
 * Issue 12 point 6: `npm run reindex` rebuilds the index from the document service. The real
 * gateway, workspace, document and search services (whose consumers keep indexing meanwhile),
 * Postgres and NATS; the reindex runs in this process against the same search database and
 * engine the service uses, reading the document service's internal stream.
 */
describe('npm run reindex', () => {
  let t: Stack;
  let searchPool: DatabasePool;
  let documentPool: DatabasePool;
  let engine: SearchEngine;
  let owner: SignedInUser;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

  beforeAll(async () => {
    t = await startPlatform(['workspace', 'document', 'comment', 'attachment', 'search']);
    searchPool = await createDatabasePool(t.config.databaseUrls.search, { maximumPoolSize: 4 });
    documentPool = await createDatabasePool(t.config.databaseUrls.document, { maximumPoolSize: 2 });
    engine = await createSearchEngine(t.config, { pool: searchPool, logger: quiet });
    owner = await signInNew(t, 'Rita Reindex');
  });
  afterAll(async () => {
    await engine?.close();
    await searchPool?.end();
    await documentPool?.end();
    await t?.stop();
  });

  let client: ServiceClient | undefined;
  /** One client for the file's runs and streams, made once the stack (and its config) is up. */
  const peers = () => (client ??= createServiceClient({ service: 'search', config: t.config, logger: quiet }));
  const run = (options: Partial<ReindexOptions> = {}) =>
    reindex({
      engine,
      pool: searchPool,
      documents: (from) => streamDocumentsFrom(peers(), from),
      peers: peers(),
      ...options,
    });

  const idsOf = (hits: SearchHit[]) => hits.map((hit) => hit.id);
  /** A summary's passage counts in a workspace without comments or files. */
  const NO_PASSAGES = { comments: { indexed: 0, removed: 0 }, attachments: { indexed: 0, removed: 0 } };

  async function search(workspaceId: string, query: string): Promise<SearchHit[]> {
    const res = await t.request(
      'GET',
      `/api/v1/documents/search?workspaceId=${workspaceId}&query=${encodeURIComponent(query)}`,
      {
        token: owner.token,
      },
    );
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** Every id the index holds for the workspace, in id order. */
  async function indexedIds(workspaceId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await engine.listIds({ workspaceId, after, limit: 100 });
      ids.push(...page);
      if (page.length < 100) return ids;
      after = page.at(-1);
    }
  }

  /**
   * The workspace's index rows as stored, but the time they were written and, unless asked, the
   * versions (the consumers wrote the events' times, a reindex writes each document's updatedAt).
   */
  const indexRows = (workspaceId: string, withVersions = false) =>
    searchPool.anyFirst(sql.type(z.object({ row: z.string() }))`
      SELECT (to_jsonb(d) - 'indexed_at' ${withVersions ? sql.fragment`` : sql.fragment`- 'text_version' - 'state_version'`})::text AS row
        FROM search_documents d WHERE workspace_id = ${workspaceId} ORDER BY id`);

  async function documentsIn(workspaceId: string, titles: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const title of titles)
      ids.push(
        (await createDocument(t, owner, { workspaceId, title, content: [paragraph(`${title} and the lantern`)] })).id,
      );
    await eventually(async () => expect((await indexedIds(workspaceId)).length).toBe(titles.length));
    return ids.sort();
  }

  it('an index emptied by hand gives the same search results after a reindex, and a second run changes nothing', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const budget = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Quarterly budget review',
      content: [paragraph('The budget for the lighthouse restoration was approved in March.')],
    });
    await createDocument(t, owner, {
      workspaceId: ws,
      parentId: budget.id,
      title: 'Lighthouse',
      content: [paragraph('Keepers logged every storm; the lighthouse lamp burned whale oil.')],
    });
    // ~90 KB of text: its event carried 64 KiB, the word at the end came from the text route.
    await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Ship manifest',
      content: [paragraph(`${'cargo crates barrels '.repeat(4_500)} zanzibar`)],
    });
    await createDocument(t, owner, {
      workspaceId: ws,
      title: '深度学习',
      content: [paragraph('深度学习模型需要大量训练数据 and a lighthouse')],
    });
    const archived = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Old lighthouse notes',
      content: [paragraph('lighthouse')],
    });
    expect(
      (await t.request('PUT', `/api/v1/documents/${archived.id}`, { token: owner.token, body: { isArchived: true } }))
        .status,
    ).toBe(200);

    const queries = ['lighthouse', 'budget', 'zanzibar', '训练', 'Quarterly budget review'];
    const before = await eventually(async () => {
      const hits = await Promise.all(queries.map((q) => search(ws, q)));
      expect(hits.map((h) => h.length)).toEqual([3, 1, 1, 1, 1]);
      return hits;
    });
    // Three hits can come before the archived document is indexed at all: wait for its archived row.
    const rowsBefore = await eventually(async () => {
      const rows = await indexRows(ws);
      expect(rows).toHaveLength(5);
      expect(rows.find((row) => row.includes(archived.id))).toContain('"archived": true');
      return rows;
    });

    await engine.removeWorkspace(ws);
    expect(await search(ws, 'lighthouse')).toEqual([]);

    const first = await run({ workspaceId: ws });
    expect(first).toEqual({
      scope: ws,
      resumedAfter: null,
      finished: true,
      batches: 1,
      indexed: 5,
      removed: 0,
      ...NO_PASSAGES,
    });
    expect(await Promise.all(queries.map((q) => search(ws, q)))).toEqual(before);
    expect(await indexRows(ws)).toEqual(rowsBefore);
    expect(await findProgress(searchPool, ws)).toBeNull();
    const rowsAfter = await indexRows(ws, true);

    const second = await run({ workspaceId: ws });
    expect(second).toMatchObject({ resumedAfter: null, finished: true, indexed: 5, removed: 0 });
    expect(await indexRows(ws, true)).toEqual(rowsAfter);
    expect(await Promise.all(queries.map((q) => search(ws, q)))).toEqual(before);
  });

  it("rebuilds comments' and attachments' texts from their services, and removes those of deleted ones", async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const doc = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Port log',
      content: [paragraph('Arrivals.')],
    });
    const kept = await startThread(t, owner, doc.id, 'The tugboat arrived late.');
    const attachmentId = await uploadFile(
      t,
      owner,
      { workspaceId: ws, documentId: doc.id },
      { name: 'manifest.pdf', body: pdfWithText(['Manifest of the schooner']) },
    );
    await eventually(
      async () => {
        expect(idsOf(await search(ws, 'tugboat'))).toEqual([doc.id]);
        expect(idsOf(await search(ws, 'schooner'))).toEqual([doc.id]);
      },
      { timeoutMs: 20_000 },
    );
    const passages = async () => [
      ...(await engine.listPassageIds({ workspaceId: ws, kind: 'comment', limit: 10 })),
      ...(await engine.listPassageIds({ workspaceId: ws, kind: 'attachment', limit: 10 })),
    ];
    const before = await passages();
    expect(before).toEqual([kept.commentId, attachmentId]);

    // Emptied by hand, plus the entry of a comment its service no longer has.
    await searchPool.query(sql.unsafe`DELETE FROM search_passages WHERE workspace_id = ${ws}`);
    await engine.upsertPassages([
      {
        id: randomUUID(),
        kind: 'comment',
        documentId: doc.id,
        workspaceId: ws,
        threadId: kept.threadId,
        text: 'ghost',
        version: 1,
      },
    ]);
    const summary = await run({ workspaceId: ws });
    expect(summary).toMatchObject({
      finished: true,
      comments: { indexed: 1, removed: 1 },
      attachments: { indexed: 1, removed: 0 },
    });
    expect(await passages()).toEqual(before);
    expect(idsOf(await search(ws, 'tugboat'))).toEqual([doc.id]);
    expect((await search(ws, 'schooner'))[0]).toMatchObject({ matchField: 'attachment', attachmentId });
    expect(await search(ws, 'ghost')).toEqual([]);
    expect(await run({ workspaceId: ws })).toMatchObject({ comments: { indexed: 1, removed: 0 } });
  });

  it('an interrupted run resumes after its last batch and finishes, with nothing indexed twice', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const ids = await documentsIn(ws, ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf']);
    await engine.removeWorkspace(ws);

    const stopped = await run({ workspaceId: ws, batchSize: 2, stopAfterBatches: 2 });
    expect(stopped).toEqual({
      scope: ws,
      resumedAfter: null,
      finished: false,
      batches: 2,
      indexed: 4,
      removed: 0,
      ...NO_PASSAGES,
    });
    expect(await indexedIds(ws)).toEqual(ids.slice(0, 4));
    expect(await findProgress(searchPool, ws)).toMatchObject({ lastId: ids[3], batches: 2, indexed: 4 });

    const resumed = await run({ workspaceId: ws, batchSize: 2 });
    // Totals over both runs: the second streamed only the 3 documents after the checkpoint.
    expect(resumed).toEqual({
      scope: ws,
      resumedAfter: ids[3],
      finished: true,
      batches: 4,
      indexed: 7,
      removed: 0,
      ...NO_PASSAGES,
    });
    expect(await indexedIds(ws)).toEqual(ids);
    expect(await findProgress(searchPool, ws)).toBeNull();
    const hits = await search(ws, 'lantern');
    expect(hits.map((h) => h.id).sort()).toEqual(ids);

    // --restart forgets a checkpoint and starts from the first document.
    await run({ workspaceId: ws, batchSize: 2, stopAfterBatches: 1 });
    expect(await run({ workspaceId: ws, batchSize: 5, restart: true })).toEqual({
      scope: ws,
      resumedAfter: null,
      finished: true,
      batches: 2,
      indexed: 7,
      removed: 0,
      ...NO_PASSAGES,
    });

    // Ctrl-C (the signal) stops after the batch in hand, checkpoint kept.
    const ctrlC = new AbortController();
    const aborted = await run({ workspaceId: ws, batchSize: 3, signal: ctrlC.signal, onProgress: () => ctrlC.abort() });
    expect(aborted).toMatchObject({ finished: false, batches: 1, indexed: 3 });
    expect(await findProgress(searchPool, ws)).toMatchObject({ lastId: ids[2] });

    // While it runs, a second run of the same workspace is refused; the first then finishes.
    let second: unknown;
    const documents: ReindexOptions['documents'] = async function* (from) {
      second ??= await run({ workspaceId: ws }).catch((error: unknown) => error);
      yield* streamDocumentsFrom(peers(), from);
    };
    expect(await run({ workspaceId: ws, documents })).toMatchObject({ resumedAfter: ids[2], finished: true });
    expect(second).toBeInstanceOf(ReindexBusyError);
    expect(await indexedIds(ws)).toEqual(ids);
  });

  it('removes entries of documents that no longer exist, and keeps one created behind the running stream', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const ids = await documentsIn(ws, ['North', 'East', 'South', 'West', 'Centre']);
    // Deleted in the document service without an event reaching search (as if the consumer had
    // been down past the stream's retention): the index still has it.
    const lost = ids[2]!;
    await documentPool.query(sql.unsafe`DELETE FROM documents WHERE id = ${lost}`);
    // An entry after every document, and one before them all, that the document service never had.
    const ghostLast = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    const ghostFirst = '00000000-0000-4000-8000-000000000001';
    const ghost = (id: string) => ({
      id,
      workspaceId: ws,
      parentId: null,
      title: 'Ghost lantern',
      icon: null,
      plainText: 'lantern',
      archived: false,
      createdBy: null,
      updatedAt: Date.parse('2026-01-01T00:00:00Z'),
      version: 1,
    });
    await engine.upsert([ghost(ghostLast), ghost(ghostFirst)]);
    expect(await indexedIds(ws)).toEqual([ghostFirst, ...ids, ghostLast]);

    // A document created while the run is past its place in id order (the stream never sends
    // it; its events index it): the sweep asks the document service and keeps it.
    const late = '00000000-0000-4000-8000-000000000002';
    let createdLate = false;
    const documents: ReindexOptions['documents'] = async function* (from) {
      for await (const doc of streamDocumentsFrom(peers(), from)) {
        if (!createdLate) {
          createdLate = true;
          await documentPool.query(sql.unsafe`
            INSERT INTO documents (id, workspace_id, title, plain_text, owner_id, created_by, last_edited_by)
            VALUES (${late}, ${ws}, 'Late lantern', 'lantern', ${owner.id}, ${owner.id}, ${owner.id})`);
          await engine.upsert([{ ...ghost(late), title: 'Late lantern', version: Date.now() }]);
        }
        yield doc;
      }
    };

    const summary = await run({ workspaceId: ws, batchSize: 2, documents });
    expect(createdLate).toBe(true);
    expect(summary).toMatchObject({ finished: true, indexed: 4, removed: 3 });
    const survivors = ids.filter((id) => id !== lost);
    expect(await indexedIds(ws)).toEqual([late, ...survivors]);
    expect((await search(ws, 'lantern')).map((h) => h.id).sort()).toEqual([late, ...survivors].sort());
  });

  it('a run over every workspace leaves each workspace with exactly its documents', async () => {
    const a = (await createWorkspace(t, owner)).id;
    const b = (await createWorkspace(t, owner)).id;
    const inA = await documentsIn(a, ['Apple', 'Apricot']);
    const inB = await documentsIn(b, ['Banana']);
    await engine.removeWorkspace(a);
    await engine.removeWorkspace(b);

    const summary = await run({ batchSize: 3 });
    expect(summary).toMatchObject({ scope: '*', finished: true });
    expect(await indexedIds(a)).toEqual(inA);
    expect(await indexedIds(b)).toEqual(inB);
  });

  it('npm run reindex -- --workspace <id> prints its progress and a summary', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const ids = await documentsIn(ws, ['Kilo', 'Lima', 'Mike']);
    await engine.removeWorkspace(ws);

    const cli = fileURLToPath(new URL('../src/commands/reindex-cli.ts', import.meta.url));
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', cli, '--workspace', ws, '--batch-size', '2'], {
          env: {
            PATH: process.env.PATH ?? '',
            NODE_ENV: 'test',
            PG_URL: t.config.pgUrl,
            DB_PREFIX: t.config.dbPrefix,
            DOCUMENT_URL: t.config.urls.document,
            COMMENT_URL: t.config.urls.comment,
            ATTACHMENT_URL: t.config.urls.attachment,
            INTERNAL_TOKEN_SECRET: t.config.internalTokenSecret,
            INTERNAL_API_KEY: t.config.internalApiKey,
            DATA_DIR: t.config.dataDir,
          },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.stderr.on('data', (chunk) => {
          err += chunk;
        });
        child.on('error', reject);
        child.on('close', (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `reindex of workspace ${ws} with the postgres engine from ${t.config.urls.document} into ${redactUrl(t.config.databaseUrls.search)}`,
    );
    expect(lines.slice(1, 3)).toEqual([
      `batch 1: 2 documents indexed, 0 index entries removed (last ${ids[1]})`,
      `batch 2: 3 documents indexed, 0 index entries removed (last ${ids[2]})`,
    ]);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      /^reindex of workspace \S+ finished \(from the first document\): 3 documents indexed in 2 batches, 0 index entries of deleted documents removed; 0 comments and 0 attachment texts indexed, 0 of deleted ones removed; \d+\.\d s$/,
    );
    expect(await indexedIds(ws)).toEqual(ids);
  });
});
