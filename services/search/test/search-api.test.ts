import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  expectStatus,
  paragraph,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SearchResult, searchAs, startSearchStack } from './helpers.js';

/**
 * Issue 12 points 1, 2 and 7 end to end: documents written through the gateway to the real document
 * service reach the index through NATS; searches go gateway → search service.
 */
let stack: Stack;
let owner: SignedInUser;
let viewer: SignedInUser;
let outsider: SignedInUser;
let workspaceId: string;
let searchDb: DatabasePool;

beforeAll(async () => {
  stack = await startSearchStack();
  [owner, viewer, outsider] = await Promise.all([
    signInNew(stack, 'Olga Owner'),
    signInNew(stack, 'Vic Viewer'),
    signInNew(stack, 'Otto Outsider'),
  ]);
  workspaceId = (await workspaceWith(stack, owner, [[viewer, 'VIEWER']])).id;
  searchDb = await createDatabasePool(stack.config.databaseUrls.search, { maximumPoolSize: 1 });
});
afterAll(async () => {
  await searchDb?.end();
  await stack?.stop();
});

const ids = (hits: SearchResult[]) => hits.map((h) => h.id);

/** The ids a search finds, once it answers 200. */
async function found(user: SignedInUser, ws: string, query: string): Promise<string[]> {
  const res = await searchAs(stack, user, ws, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return ids(res.body.data);
}

/** Waits until `query` finds exactly `expected` (the index follows events). */
function until(user: SignedInUser, ws: string, query: string, expected: string[]) {
  return eventually(async () => expect((await found(user, ws, query)).sort()).toEqual([...expected].sort()), {
    timeoutMs: 20_000,
  });
}

/** Takes a document out of the index behind the engine's back (and the search answers it remembers). */
async function forgetInIndex(id: string) {
  await searchDb.query(sql.unsafe`
    WITH gone AS (DELETE FROM search_documents WHERE id = ${id} RETURNING workspace_id)
    UPDATE search_workspace_versions SET version = version + 1 WHERE workspace_id IN (SELECT workspace_id FROM gone)`);
}

async function update(id: string, body: Record<string, unknown>) {
  expectStatus(await stack.request('PUT', `/api/v1/documents/${id}`, { token: owner.token, body }), 200, 'update');
}

describe('indexing from document events', () => {
  it('follows create, update, move, archive, restore and a cascading delete', async () => {
    const parent = await createDocument(stack, owner, {
      workspaceId,
      title: 'Research',
      content: [paragraph('Lab notes.')],
    });
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Quarterly roadmap',
      content: [paragraph('深度学习模型需要大量训练数据. The café opens Subpages for everyone.')],
    });
    await until(viewer, workspaceId, '训练', [doc.id]);
    const [hit] = (await searchAs(stack, viewer, workspaceId, '训练')).body.data;
    expect(hit).toMatchObject({ id: doc.id, title: 'Quarterly roadmap', parentId: null, matchField: 'content' });
    expect(hit.snippet).toContain('<mark>训练</mark>');
    expect(await found(viewer, workspaceId, 'cafe')).toEqual([doc.id]);
    expect(await found(viewer, workspaceId, 'pages')).toEqual([doc.id]);

    await update(doc.id, { title: 'Annual plan', content: JSON.stringify([paragraph('Budget forecasting.')]) });
    await until(viewer, workspaceId, 'forecasting', [doc.id]);
    expect(await found(viewer, workspaceId, '训练')).toEqual([]);
    expect((await searchAs(stack, viewer, workspaceId, 'annual plan')).body.data[0]).toMatchObject({
      id: doc.id,
      title: 'Annual plan',
      matchField: 'title',
    });

    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${doc.id}/move`, {
        token: owner.token,
        body: { parentId: parent.id },
      }),
      200,
      'move',
    );
    await eventually(async () => {
      const res = await searchAs(stack, viewer, workspaceId, 'forecasting');
      expect(res.body.data[0]?.parentId).toBe(parent.id);
    });

    // Archiving the parent hides its subtree; restoring brings it back.
    await update(parent.id, { isArchived: true });
    await until(viewer, workspaceId, 'forecasting', []);
    expect(await found(viewer, workspaceId, 'research')).toEqual([]);
    await update(parent.id, { isArchived: false });
    await until(viewer, workspaceId, 'forecasting', [doc.id]);

    expectStatus(
      await stack.request('DELETE', `/api/v1/documents/${parent.id}/cascade`, { token: owner.token }),
      200,
      'cascade delete',
    );
    await until(viewer, workspaceId, 'forecasting', []);
    expect(await found(viewer, workspaceId, 'lab')).toEqual([]);
    const left = await searchDb.oneFirst(sql.unsafe`
      SELECT count(*)::int FROM search_documents WHERE id IN (${doc.id}, ${parent.id})`);
    expect(left).toBe(0);
  });

  it('a document the index does not hold comes back whole with its next state change', async () => {
    const parent = await createDocument(stack, owner, { workspaceId, title: 'Handbook', content: [] });
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Expense policy',
      content: [paragraph('Receipts are scanned within thirty days.')],
    });
    await until(viewer, workspaceId, 'receipts', [doc.id]);
    // As if its creation event had failed and waited for a retry (or were older than the stream).
    await forgetInIndex(doc.id);
    expect(await found(viewer, workspaceId, 'receipts')).toEqual([]);

    // A move alone carries no text: the indexer reads the document whole from the document service.
    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${doc.id}/move`, {
        token: owner.token,
        body: { parentId: parent.id },
      }),
      200,
      'move',
    );
    await eventually(async () => {
      const [hit] = (await searchAs(stack, viewer, workspaceId, 'receipts')).body.data;
      expect(hit).toMatchObject({ id: doc.id, title: 'Expense policy', parentId: parent.id });
    });

    // The same for an archive: the document comes back archived, so a late creation cannot show it.
    await forgetInIndex(doc.id);
    await update(doc.id, { isArchived: true });
    await eventually(async () => {
      const archived = await searchDb.maybeOneFirst(
        sql.unsafe`SELECT archived FROM search_documents WHERE id = ${doc.id}`,
      );
      expect(archived).toBe(true);
    });
    expect(await found(viewer, workspaceId, 'receipts')).toEqual([]);
  });

  it('indexes the whole text of a 2 MiB document (its event carried 64 KiB): a word near its end is found', async () => {
    const filler = 'Plain filler words about nothing in particular, repeated to make the document long. ';
    const chunk = filler.repeat(Math.floor(600_000 / filler.length));
    const blocks = [paragraph(chunk), paragraph(chunk), paragraph(chunk), paragraph('The treasure is zanzibarquest.')];
    expect(Buffer.byteLength(JSON.stringify(blocks))).toBeGreaterThan(1.7 * 1024 * 1024);
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Long read', content: blocks });
    await until(viewer, workspaceId, 'zanzibarquest', [doc.id]);
    const [hit] = (await searchAs(stack, viewer, workspaceId, 'zanzibar')).body.data;
    expect(hit.id).toBe(doc.id);
    expect(hit.snippet).toMatch(/<mark>zanzibar(quest)?<\/mark>/);
    expect(hit.snippet).toContain('treasure');
    expect(hit.snippet.length).toBeLessThan(2000);
  });

  it('a late event does not overwrite what a newer one wrote', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Glossary',
      content: [paragraph('Current terms.')],
    });
    await until(viewer, workspaceId, 'glossary', [doc.id]);
    await publishEvent(stack.config, {
      type: 'document.updated',
      occurredAt: new Date(Date.now() - 3_600_000).toISOString(),
      data: { id: doc.id, workspaceId, title: 'Stale', plainText: 'obsoleteword', isArchived: false },
    });
    // A newer event published after it: once it is applied, the late one was handled before it.
    const marker = await createDocument(stack, owner, { workspaceId, title: 'Marker', content: [paragraph('fence')] });
    await until(viewer, workspaceId, 'fence', [marker.id]);
    expect(await found(viewer, workspaceId, 'obsoleteword')).toEqual([]);
    expect(await found(viewer, workspaceId, 'glossary')).toEqual([doc.id]);
  });
});

describe('who may search', () => {
  it('a member finds; a non-member and an unknown workspace get 404', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Secret recipe',
      content: [paragraph('Saffron.')],
    });
    await until(viewer, workspaceId, 'saffron', [doc.id]);
    const stranger = await searchAs(stack, outsider, workspaceId, 'saffron');
    expect(stranger.status).toBe(404);
    expect(stranger.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect((await searchAs(stack, viewer, '00000000-0000-4000-8000-000000000000', 'saffron')).status).toBe(404);
  });

  it('removing a member revokes their search', async () => {
    const member = await signInNew(stack, 'Mia Member');
    const added = await addMember(stack, workspaceId, owner, member, 'EDITOR');
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Payroll',
      content: [paragraph('Salaries.')],
    });
    await until(member, workspaceId, 'salaries', [doc.id]);
    expectStatus(
      await stack.request('DELETE', `/api/v1/workspaces/${workspaceId}/members/${added.id}`, { token: owner.token }),
      204,
      'remove member',
    );
    await eventually(async () => expect((await searchAs(stack, member, workspaceId, 'salaries')).status).toBe(404));
  });

  it('never returns another workspace, and workspace.deleted purges its documents', async () => {
    const other = (await createWorkspace(stack, owner)).id;
    const mine = await createDocument(stack, owner, { workspaceId, title: 'Kayak', content: [paragraph('Paddles.')] });
    const theirs = await createDocument(stack, owner, {
      workspaceId: other,
      title: 'Kayak',
      content: [paragraph('Paddles.')],
    });
    await until(owner, workspaceId, 'kayak', [mine.id]);
    await until(owner, other, 'kayak', [theirs.id]);
    expectStatus(
      await stack.request('DELETE', `/api/v1/workspaces/${other}`, { token: owner.token }),
      200,
      'delete workspace',
    );
    await eventually(async () => {
      const count = await searchDb.oneFirst(
        sql.unsafe`SELECT count(*)::int FROM search_documents WHERE workspace_id = ${other}`,
      );
      expect(count).toBe(0);
    });
    expect((await searchAs(stack, owner, other, 'kayak')).status).toBe(404);
    expect(await found(owner, workspaceId, 'kayak')).toEqual([mine.id]);
  });
});

describe('request rules', () => {
  it('limit is 1..50, 20 by default', async () => {
    const ws = (await createWorkspace(stack, owner)).id;
    const made = [];
    for (let i = 0; i < 21; i++) {
      made.push((await createDocument(stack, owner, { workspaceId: ws, title: `Harbour ${i}`, content: [] })).id);
    }
    // All 21 indexed first: 20 hits at the default limit alone would not say the 21st is there.
    await eventually(async () =>
      expect((await searchAs(stack, owner, ws, 'harbour', '&limit=50')).body.data).toHaveLength(21),
    );
    expect(await found(owner, ws, `harbour`)).toHaveLength(20);
    expect((await searchAs(stack, owner, ws, 'harbour', '&limit=3')).body.data).toHaveLength(3);
    for (const limit of ['0', '51', '-1', 'ten']) {
      const res = await searchAs(stack, owner, ws, 'harbour', `&limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });

  it('answers hostile, empty and oversized queries with 200 or 400, never 500', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Symbols',
      content: [paragraph(`It's "quoted" & | ! : * ( )`)],
    });
    await until(owner, workspaceId, 'symbols', [doc.id]);
    for (const query of ["'", '"', '&|!:*()', '\\', "'); DROP TABLE search_documents; --", '', ' ', '-', ':*', '<b>']) {
      const res = await searchAs(stack, owner, workspaceId, query);
      expect(res.status, query).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    }
    expect(await found(owner, workspaceId, '"quoted"')).toEqual([doc.id]);
    const nul = await stack.request('GET', `/api/v1/documents/search?workspaceId=${workspaceId}&query=a%00b`, {
      token: owner.token,
    });
    expect(nul.status).toBe(400);
    const long = await searchAs(stack, owner, workspaceId, 'x'.repeat(10 * 1024));
    expect(long.status).toBe(400);
    expect(long.body.error?.message).toMatch(/query/i);
    for (const extra of ['', '&workspaceId=not-a-uuid']) {
      const res = await stack.request('GET', `/api/v1/documents/search?query=a${extra}`, { token: owner.token });
      expect(res.status).toBe(400);
    }
    expect((await stack.request('GET', `/api/v1/documents/search?workspaceId=${workspaceId}&query=a`)).status).toBe(
      401,
    );
  });

  it("is described in the gateway's merged OpenAPI document", async () => {
    const res = await stack.request('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toContain('/api/v1/documents/search');
  });
});
