import { randomUUID } from 'node:crypto';
import { mintIdentityToken } from '@wiki/auth';
import { sql, z } from '@wiki/db';
import { AppError } from '@wiki/http';
import { createServiceClient, importDocumentBatch, rollbackDocumentImport } from '@wiki/service-client';
import {
  createDocument,
  createWorkspace,
  type EventRecorder,
  eventually,
  paragraph,
  recordEvents,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

/**
 * POST /internal/documents/import and DELETE /internal/documents/import/{importId} (ARCHITECTURE
 * 5.19): a tree made in one transaction with its first revisions (IMPORT) and document.created
 * events, idempotent per import, refused whole; and the rollback of an import made in several calls.
 */
describe('importing a tree of documents (service route)', () => {
  let t: DocStack;
  let rec: EventRecorder;
  let owner: SignedInUser;
  let viewer: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack();
    rec = await recordEvents(t.config);
    [owner, viewer] = await Promise.all([signInNew(t, 'Ida Importer'), signInNew(t, 'Vic Viewer')]);
    ws = (await workspaceWith(t, owner, [[viewer, 'VIEWER']])).id;
  });
  afterAll(async () => {
    await rec?.close();
    await t?.stop();
  });

  interface Answer {
    status: number;
    body: any;
  }
  /** A call straight to the document service (the gateway routes no `/internal` path) as the export service. */
  async function call(method: string, path: string, body?: unknown, identity?: string | null): Promise<Answer> {
    const token = identity === undefined ? await t.serviceToken('export') : identity;
    const res = await fetch(`${t.serviceUrls.document}${path}`, {
      method,
      headers: {
        ...(token ? { 'x-wiki-identity': token } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  const importCall = (body: Record<string, unknown>) =>
    call('POST', '/internal/documents/import', { importId: randomUUID(), workspaceId: ws, userId: owner.id, ...body });

  const doc = (title: string, parentId: string | null = null, position?: number) => ({
    id: randomUUID(),
    parentId,
    title,
    content: [paragraph(`text of ${title}`)],
    ...(position === undefined ? {} : { position }),
  });
  const children = async (id: string) =>
    (await t.call('GET', `/api/v1/documents/${id}/children`, owner)).body.data.map((d: { title: string }) => d.title);

  it('creates a tree of three levels in one call, siblings in their order after the existing children', async () => {
    const parent = await createDocument(t, owner, { workspaceId: ws, title: 'Place' });
    await createDocument(t, owner, { workspaceId: ws, parentId: parent.id, title: 'Was here' });
    const a = doc('A', null, 2);
    const b = doc('B', null, 1);
    const a1 = doc('A1', a.id, 1);
    const a2 = doc('A2', a.id, 0);
    const a2x = doc('A2x', a2.id);
    // Children listed before their parents: the order of the call is not the order of creation.
    const documents = [a2x, a1, a2, a, b];
    const importId = randomUUID();
    const res = await importCall({ importId, parentId: parent.id, documents });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ documentIds: documents.map((d) => d.id), created: 5 });

    expect(await children(parent.id)).toEqual(['Was here', 'B', 'A']);
    expect(await children(a.id)).toEqual(['A2', 'A1']);
    expect(await children(a2.id)).toEqual(['A2x']);
    const read = (await t.call('GET', `/api/v1/documents/${a2x.id}`, owner)).body.data;
    expect(read).toMatchObject({ title: 'A2x', parentId: a2.id, workspaceId: ws, createdBy: owner.id, revision: 1 });
    expect(JSON.parse(read.content)[0].content[0].text).toBe('text of A2x');
    expect(read.excerpt).toBe('text of A2x');

    // The first revision of each says IMPORT.
    const sources = await t.pool.anyFirst(sql.type(z.object({ source: z.string() }))`
      SELECT source FROM document_revisions WHERE document_id = ANY(${sql.array(
        documents.map((d) => d.id),
        'uuid',
      )})`);
    expect(sources).toEqual(Array(5).fill('IMPORT'));

    // document.created for each, parents before children, through the outbox to NATS.
    const created = (await t.outbox('document.created')).filter((e) => documents.some((d) => d.id === e.data.id));
    expect(created.map((e) => e.data.title)).toEqual(['B', 'A', 'A2', 'A1', 'A2x']);
    expect(created[4]).toMatchObject({
      actorId: owner.id,
      workspaceId: ws,
      data: { parentId: a2.id, createdBy: owner.id, plainText: 'text of A2x', isArchived: false },
    });
    expect(created[4].data.updatedAt).toBe(read.updatedAt);
    await eventually(() => {
      const seen = rec.ofType('document.created').filter((e) => documents.some((d) => d.id === e.data.id));
      if (seen.length < 5) throw new Error('not published yet');
    });
    expect(rec.contractViolations()).toEqual([]);
  });

  it('answers a retried call the same, making nothing twice, and completes a call that was cut short', async () => {
    const importId = randomUUID();
    const top = doc('Top');
    const under = doc('Under', top.id);
    const first = await importCall({ importId, documents: [top, under] });
    expect(first.status).toBe(200);
    const again = await importCall({ importId, documents: [top, under] });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ documentIds: [top.id, under.id], created: 0 });
    const count = await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM documents WHERE id IN (${top.id}, ${under.id})`);
    expect(count).toBe(2);
    expect((await t.outbox('document.created')).filter((e) => e.data.id === top.id)).toHaveLength(1);

    // Two tries of one call at once (a job and its stalled twin): one makes them, the other finds them.
    const raceId = randomUUID();
    const racing = [doc('Race'), doc('Race 2')];
    const both = await Promise.all([1, 2].map(() => importCall({ importId: raceId, documents: racing })));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.body.data.created).sort()).toEqual([0, 2]);

    // Same import, one more document: only the new one is made.
    const more = doc('More', top.id);
    const third = await importCall({ importId, documents: [top, under, more] });
    expect(third.body.data).toEqual({ documentIds: [top.id, under.id, more.id], created: 1 });
    expect(await children(top.id)).toEqual(['Under', 'More']);
  });

  it('refuses an id of another import or another workspace (409), and nothing of the call is made', async () => {
    const mine = doc('Mine');
    await importCall({ documents: [mine] });
    const fresh = doc('Fresh');
    const clash = await importCall({ documents: [fresh, { ...doc('Clash'), id: mine.id }] });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'CONFLICT', reason: 'DOCUMENT_ID_TAKEN' });

    const other = await createWorkspace(t, owner);
    const theirs = await createDocument(t, owner, { workspaceId: other.id, title: 'Theirs' });
    const taken = await importCall({ documents: [fresh, { ...doc('Taken'), id: theirs.id }] });
    expect(taken.status).toBe(409);
    expect((await t.call('GET', `/api/v1/documents/${fresh.id}`, owner)).status).toBe(404);
  });

  it('needs an EDITOR of the workspace, and a parent of that workspace that is not archived', async () => {
    const byViewer = await importCall({ userId: viewer.id, documents: [doc('No')] });
    expect(byViewer.status).toBe(403);
    const stranger = await signInNew(t, 'Sam Stranger');
    expect((await importCall({ userId: stranger.id, documents: [doc('No')] })).status).toBe(404);

    const other = await createWorkspace(t, owner);
    const foreign = await createDocument(t, owner, { workspaceId: other.id, title: 'Elsewhere' });
    const wrongPlace = await importCall({ parentId: foreign.id, documents: [doc('No')] });
    expect(wrongPlace.status).toBe(400);
    expect(wrongPlace.body.error.details[0].field).toBe('parentId');

    const archived = await createDocument(t, owner, { workspaceId: ws, title: 'Archived' });
    await t.call('PUT', `/api/v1/documents/${archived.id}`, owner, { isArchived: true });
    const underArchived = await importCall({ parentId: archived.id, documents: [doc('No')] });
    expect(underArchived.status).toBe(400);
    expect(underArchived.body.error.details[0].field).toBe('parentId');

    // A parent outside the call that no earlier call of this import made.
    const elsewhere = await createDocument(t, owner, { workspaceId: ws, title: 'Not imported' });
    const stray = await importCall({ documents: [doc('Ok'), doc('Stray', elsewhere.id)] });
    expect(stray.status).toBe(400);
    expect(stray.body.error.details[0].field).toBe('documents[1].parentId');

    // Only a service identity: a user (even the owner) is refused, no identity is a 401.
    const user = await mintIdentityToken(t.config.internalTokenSecret, { kind: 'user', userId: owner.id }, 60);
    expect((await call('POST', '/internal/documents/import', {}, user)).status).toBe(403);
    expect((await call('POST', '/internal/documents/import', {}, null)).status).toBe(401);
  });

  it('is bounded: 1,000 documents a call (more, bad content or a cycle are 400); content over 2 MiB is 413', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ id: randomUUID(), title: `D${i}` }));
    const tooMany = await importCall({ documents: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
    // 1,000 is still one call: ten folders of 99 pages each.
    const folders = many.slice(0, 10);
    const pages = many
      .slice(10, 1000)
      .map((d, i) => ({ ...d, parentId: folders[i % 10].id, content: [paragraph(d.title)] }));
    const full = await importCall({ documents: [...folders, ...pages] });
    expect(full.status).toBe(200);
    expect(full.body.data.created).toBe(1000);
    expect(await children(folders[3].id)).toHaveLength(99);

    const big = JSON.stringify([paragraph('x'.repeat(2 * 1024 * 1024))]);
    const tooLarge = await importCall({ documents: [doc('Small'), { ...doc('Big'), content: big }] });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(tooLarge.body.error.details[0].field).toBe('documents[1].content');

    const bad = await importCall({ documents: [{ ...doc('Bad'), content: [{ props: {} }] }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('documents[0].content[0].type');

    const x = doc('X');
    const y = doc('Y', x.id);
    const cycle = await importCall({ documents: [{ ...x, parentId: y.id }, y] });
    expect(cycle.status).toBe(400);
    const twice = await importCall({ documents: [x, { ...y, id: x.id }] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details[0].field).toBe('documents[1].id');
    expect((await t.call('GET', `/api/v1/documents/${x.id}`, owner)).status).toBe(404);
  });

  it('rolls an import of several calls back: its documents go, with document.deleted; what others added stays', async () => {
    const importId = randomUUID();
    const root = doc('Import root');
    const first = doc('First', root.id);
    await importCall({ importId, documents: [root, first] });
    // A second call hangs below the first one's documents.
    const second = doc('Second', first.id);
    const second2 = doc('Second too', root.id);
    const res = await importCall({ importId, documents: [second, second2] });
    expect(res.status).toBe(200);
    // Someone adds a page under an imported one meanwhile.
    const theirs = await createDocument(t, owner, { workspaceId: ws, parentId: first.id, title: 'Added by hand' });

    const rollback = await call('DELETE', `/internal/documents/import/${importId}?userId=${owner.id}`);
    expect(rollback.status).toBe(200);
    expect([...rollback.body.data.documentIds].sort()).toEqual([root.id, first.id, second.id, second2.id].sort());
    expect(rollback.body.data.keptIds).toEqual([theirs.id]);
    for (const d of [root, first, second, second2])
      expect((await t.call('GET', `/api/v1/documents/${d.id}`, owner)).status).toBe(404);
    const kept = (await t.call('GET', `/api/v1/documents/${theirs.id}`, owner)).body.data;
    expect(kept.parentId).toBeNull();

    const deleted = (await t.outbox('document.deleted')).filter((e) => e.data.id === root.id);
    expect(deleted).toHaveLength(1);
    expect(deleted[0].data).toMatchObject({ cascade: true, part: 1, parts: 1 });
    expect([...deleted[0].data.ids].sort()).toEqual([root.id, first.id, second.id, second2.id].sort());
    expect(deleted[0].data.ids[0]).toBe(root.id);
    const moved = (await t.outbox('document.moved')).filter((e) => e.data.id === theirs.id);
    expect(moved[0].data).toMatchObject({ reason: 'parent-deleted', previousParentId: first.id, parentId: null });

    // Again: nothing left to remove.
    const again = await call('DELETE', `/internal/documents/import/${importId}?userId=${owner.id}`);
    expect(again.body.data).toEqual({ documentIds: [], keptIds: [] });
    expect((await call('DELETE', `/internal/documents/import/${importId}`)).status).toBe(400);
  });

  it('is what the import job calls through @wiki/service-client: refusals come back as the peer’s errors', async () => {
    const client = createServiceClient({ service: 'export', config: t.config, logger: { error: () => undefined } });
    const importId = randomUUID();
    const top = doc('Via client');
    const made = await importDocumentBatch(client, {
      importId,
      workspaceId: ws,
      parentId: null,
      userId: owner.id,
      documents: [top],
    });
    expect(made).toEqual({ documentIds: [top.id], created: 1 });
    const refused = await importDocumentBatch(client, {
      importId,
      workspaceId: ws,
      parentId: null,
      userId: viewer.id,
      documents: [doc('No')],
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', statusCode: 403 });
    const taken = await importDocumentBatch(client, {
      importId: randomUUID(),
      workspaceId: ws,
      parentId: null,
      userId: owner.id,
      documents: [top],
    }).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: 'CONFLICT', reason: 'DOCUMENT_ID_TAKEN' });
    expect(await rollbackDocumentImport(client, importId, owner.id)).toEqual({ documentIds: [top.id], keptIds: [] });
  });
});
