import { randomUUID } from 'node:crypto';
import { mintIdentityToken } from '@wiki/auth';
import { sql } from '@wiki/db';
import { createServiceClient, type StreamedDocument, streamDocumentsFrom } from '@wiki/service-client';
import { createDocument, createWorkspace, paragraph, type SignedInUser, signInNew } from '@wiki/testing';
import { documentPage } from '../src/db/document-stream.js';
import { STREAM_PAGING, streamDocuments } from '../src/queries/document-stream.js';
import { type DocStack, startDocStack } from './helpers.js';

/**
 * Issue 12 point 6: GET /internal/documents/stream, what `npm run reindex` rebuilds a search index
 * from. Through the real document service and Postgres: documents in id order with their whole
 * text, `after` and `limit`, deleted documents absent, service callers only, and a large set read
 * page by page as the caller reads.
 */
describe('internal document stream', () => {
  let t: DocStack;
  let owner: SignedInUser;

  beforeAll(async () => {
    t = await startDocStack();
    owner = await signInNew(t, 'Stella Stream');
  });
  afterAll(async () => {
    await t?.stop();
  });

  const quiet = { error: () => undefined };
  const stream = (options: { workspaceId?: string; after?: string; limit?: number } = {}) =>
    streamDocumentsFrom(createServiceClient({ service: 'search', config: t.config, logger: quiet }), options);

  async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const item of items) out.push(item);
    return out;
  }

  const ascending = (ids: string[]) => [...ids].sort();

  it("sends a workspace's documents in id order with their whole text, archived ones flagged and deleted ones absent", async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const other = (await createWorkspace(t, owner)).id;
    const long = `Lorem ipsum ${'dolor sit amet '.repeat(6_000)}finis`; // ~90 KB: above the 64 KiB event cut
    const parent = await createDocument(t, owner, { workspaceId: ws, title: 'Parent', content: [paragraph(long)] });
    const child = await createDocument(t, owner, {
      workspaceId: ws,
      parentId: parent.id,
      title: 'Child',
      content: [paragraph('child text')],
    });
    const archived = await createDocument(t, owner, { workspaceId: ws, title: 'Old', content: [paragraph('old')] });
    const deleted = await createDocument(t, owner, { workspaceId: ws, title: 'Gone', content: [paragraph('gone')] });
    const elsewhere = await createDocument(t, owner, { workspaceId: other, title: 'Elsewhere' });
    expect((await t.call('PUT', `/api/v1/documents/${archived.id}`, owner, { isArchived: true })).status).toBe(200);
    expect((await t.call('DELETE', `/api/v1/documents/${deleted.id}`, owner)).status).toBe(200);

    const docs = await all(stream({ workspaceId: ws }));
    const ids = docs.map((d) => d.id);
    expect(ids).toEqual(ascending([parent.id, child.id, archived.id]));
    const byId = new Map(docs.map((d) => [d.id, d]));
    expect(byId.get(parent.id)).toEqual<StreamedDocument>({
      id: parent.id,
      workspaceId: ws,
      createdBy: owner.id,
      parentId: null,
      title: 'Parent',
      icon: null,
      plainText: long,
      archived: false,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(byId.get(child.id)).toMatchObject({ parentId: parent.id, plainText: 'child text', archived: false });
    expect(byId.get(archived.id)).toMatchObject({ archived: true, plainText: 'old' });
    expect(ids).not.toContain(elsewhere.id);

    // Without a workspace: every workspace's, still one id order.
    const everything = (await all(stream())).map((d) => d.id);
    expect(everything).toEqual(ascending(everything));
    expect(everything).toEqual(expect.arrayContaining([parent.id, child.id, archived.id, elsewhere.id]));
    expect(everything).not.toContain(deleted.id);
  });

  it('resumes after an id and stops at the limit, closing every answer with its count', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const created = [];
    for (const title of ['One', 'Two', 'Three', 'Four'])
      created.push(await createDocument(t, owner, { workspaceId: ws, title }));
    const ids = ascending(created.map((d) => d.id));

    expect((await all(stream({ workspaceId: ws, after: ids[1] }))).map((d) => d.id)).toEqual(ids.slice(2));
    expect((await all(stream({ workspaceId: ws, after: ids[0], limit: 2 }))).map((d) => d.id)).toEqual(ids.slice(1, 3));
    expect(await all(stream({ workspaceId: ws, after: ids[3] }))).toEqual([]);

    // The wire format: NDJSON, one document a line, then the closing line.
    const token = await t.serviceToken('search');
    const res = await fetch(`${t.serviceUrls.document}/internal/documents/stream?workspaceId=${ws}&limit=3`, {
      headers: { 'x-wiki-identity': token },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.id ?? l)).toEqual([...ids.slice(0, 3), { done: true, count: 3 }]);
  });

  it('answers only a service identity: none is 401, a user 403, a malformed cursor 400', async () => {
    const none = await t.direct('GET', '/internal/documents/stream');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');

    const user = await mintIdentityToken(t.config.internalTokenSecret, {
      userId: owner.id,
      email: owner.email,
      name: owner.name,
      roles: [],
      kind: 'user',
    });
    const asUser = await t.direct('GET', '/internal/documents/stream', user);
    expect(asUser.status).toBe(403);
    expect(asUser.body.error.code).toBe('FORBIDDEN');

    // The same path with a service identity is the stream (not a document named "stream").
    const service = await fetch(`${t.serviceUrls.document}/internal/documents/stream?limit=1`, {
      headers: { 'x-wiki-identity': await t.serviceToken() },
    });
    expect(service.status).toBe(200);
    expect((await service.text()).trimEnd().split('\n').at(-1)).toMatch(/^\{"done":true,"count":[01]\}$/);

    const bad = await t.direct('GET', '/internal/documents/stream?after=not-a-uuid', await t.serviceToken());
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');

    // A token signed with another secret is refused before anything is sent.
    const forged = streamDocumentsFrom(
      createServiceClient({
        service: 'search',
        config: { ...t.config, internalTokenSecret: 'not-the-secret' },
        logger: quiet,
      }),
    );
    await expect(all(forged)).rejects.toThrow(/answered 401/);
  });

  describe('a large workspace (5,000 documents of 16 KB text each, 80 MB in all)', () => {
    const COUNT = 5_000;
    let ws: string;
    let ids: string[];

    beforeAll(async () => {
      ws = (await createWorkspace(t, owner)).id;
      // Written straight into the table: the stream is under test, not the create route.
      await t.pool.query(sql.unsafe`
        INSERT INTO documents (workspace_id, title, plain_text, owner_id, created_by, last_edited_by)
        SELECT ${ws}, 'Bulk ' || n, repeat(md5(n::text), 500), ${owner.id}, ${owner.id}, ${owner.id}
          FROM generate_series(1, ${COUNT}) AS n`);
      ids = [
        ...(await t.pool.anyFirst(sql.unsafe`SELECT id::text FROM documents WHERE workspace_id = ${ws} ORDER BY id`)),
      ] as string[];
      expect(ids).toHaveLength(COUNT);
    });

    it('reads page by page as the caller reads: a document deleted after the first one arrived is not sent', async () => {
      const docs = stream({ workspaceId: ws });
      const first = await docs.next();
      expect(first.done).toBe(false);
      expect((first.value as StreamedDocument).id).toBe(ids[0]);
      expect((first.value as StreamedDocument).plainText).toHaveLength(16_000);

      // Had the service read the whole table before answering, the last document would still come.
      const last = ids[COUNT - 1]!;
      await t.pool.query(sql.unsafe`DELETE FROM documents WHERE id = ${last}`);

      const rest = (await all(docs)).map((d) => d.id);
      expect(rest).toEqual(ids.slice(1, COUNT - 1));
      ids = ids.slice(0, COUNT - 1);
    });

    it('never asks Postgres for more than a page: at most 500 rows and about 4 MiB of text a query', async () => {
      const pages: number[] = [];
      const counting = {
        any: (async (query: Parameters<typeof t.pool.any>[0]) => {
          const rows = await t.pool.any(query);
          pages.push(rows.length);
          return rows;
        }) as typeof t.pool.any,
      };
      let sent = 0;
      for await (const doc of streamDocuments(counting as Parameters<typeof streamDocuments>[0], { workspaceId: ws })) {
        expect(doc.id).toBe(ids[sent]);
        sent += 1;
      }
      expect(sent).toBe(ids.length);
      // 16,000 bytes a document under a 4 MiB budget: 263 documents a page, then an empty page.
      const perPage = Math.ceil(STREAM_PAGING.textBytes / 16_000);
      expect(pages.slice(0, -1).every((n) => n === perPage || n === sent % perPage)).toBe(true);
      expect(pages).toHaveLength(Math.ceil(sent / perPage) + 1);
      expect(pages.at(-1)).toBe(0);

      // And the row cap for short documents.
      const short = await documentPage(t.pool, { rows: STREAM_PAGING.rows, textBytes: STREAM_PAGING.textBytes });
      expect(short.length).toBeLessThanOrEqual(STREAM_PAGING.rows);
    });
  });

  it('leaves a workspace that does not exist empty rather than failing', async () => {
    const docs = await all(stream({ workspaceId: randomUUID() }));
    expect(docs).toEqual([]);
  });
});
