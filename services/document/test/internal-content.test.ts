import { randomUUID } from 'node:crypto';
import { createDocument, createWorkspace, paragraph, type SignedInUser, signInNew } from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

/** GET /internal/documents/{id}/content: what the export service's workers render. */
describe('the internal content route', () => {
  let t: DocStack;
  let owner: SignedInUser;

  beforeAll(async () => {
    t = await startDocStack();
    owner = await signInNew(t, 'Owner');
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('answers the stored block content to a service identity only, and 404 for an unknown document', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Content', content: [paragraph('blocks')] });
    const ok = await t.direct('GET', `/internal/documents/${doc.id}/content`, await t.serviceToken('export'));
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({
      id: doc.id,
      workspaceId: ws,
      title: 'Content',
      content: doc.content,
      isArchived: false,
      updatedAt: doc.updatedAt,
    });
    expect(JSON.parse(ok.body.data.content)[0].content[0].text).toBe('blocks');
    expect((await t.direct('GET', `/internal/documents/${doc.id}/content`, null)).status).toBe(401);
    const missing = await t.direct(
      'GET',
      `/internal/documents/${randomUUID()}/content`,
      await t.serviceToken('export'),
    );
    expect(missing.status).toBe(404);
  });

  it('answers a workspace outline (ids, parents, titles in sibling order) without archived documents', async () => {
    const ws = (await createWorkspace(t, owner)).id;
    const root = await createDocument(t, owner, { workspaceId: ws, title: 'Root' });
    const a = await createDocument(t, owner, { workspaceId: ws, parentId: root.id, title: 'A' });
    const b = await createDocument(t, owner, { workspaceId: ws, parentId: root.id, title: 'B' });
    const archived = await t.call('PUT', `/api/v1/documents/${b.id}`, owner, { isArchived: true });
    expect(archived.status).toBe(200);
    const path = `/internal/documents/tree?workspaceId=${ws}`;
    const ok = await t.direct('GET', path, await t.serviceToken('export'));
    expect(ok.status).toBe(200);
    expect(ok.body.data.documents).toEqual([
      { id: root.id, parentId: null, title: 'Root' },
      { id: a.id, parentId: root.id, title: 'A' },
    ]);
    expect((await t.direct('GET', path, null)).status).toBe(401);
    expect((await t.direct('GET', '/internal/documents/tree', await t.serviceToken('export'))).status).toBe(400);
  });
});
