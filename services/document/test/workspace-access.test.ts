import { sql } from '@wiki/db';
import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  paragraph,
  type SignedInUser,
  signInNew,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

// ARCHITECTURE 5.13: archiving a workspace revokes access to its content on every service, as
// removing a member does, and takes its published documents offline; restoring it gives both back.
describe('documents of an archived workspace', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let workspaceId: string;
  let documentId: string;

  beforeAll(async () => {
    t = await startDocStack();
    [owner, editor] = await Promise.all([signInNew(t, 'Owner'), signInNew(t, 'Editor')]);
    workspaceId = (await createWorkspace(t, owner)).id;
    await addMember(t, workspaceId, owner, editor, 'EDITOR');
    documentId = (await createDocument(t, editor, { workspaceId, title: 'Plans', content: [paragraph('q3')] })).id;
  });
  afterAll(async () => t?.stop());

  const archive = async (isArchived: boolean) =>
    expect((await t.call('PUT', `/api/v1/workspaces/${workspaceId}`, owner, { isArchived })).status).toBe(200);
  const permission = (user: SignedInUser) =>
    t.internal('GET', `/api/v1/internal/documents/${documentId}/permission?userId=${user.id}`);

  const publicPaths = () =>
    [documentId, `${documentId}/children`, `${documentId}/ancestors`].map((p) => `/api/v1/public/documents/${p}`);

  it('answers 404 to every member once the workspace is archived, and 200 again once it is restored', async () => {
    expect((await t.call('GET', `/api/v1/documents/${documentId}`, editor)).status).toBe(200);
    expect((await permission(editor)).status).toBe(200);
    expect((await t.call('POST', `/api/v1/documents/${documentId}/publish`, editor)).status).toBe(200);
    for (const path of publicPaths()) expect((await t.call('GET', path, null)).status).toBe(200);

    await archive(true);
    await eventually(async () =>
      expect((await t.call('GET', `/api/v1/documents/${documentId}`, editor)).status).toBe(404),
    );
    for (const user of [owner, editor]) {
      expect((await t.call('GET', `/api/v1/documents/${documentId}`, user)).status).toBe(404);
      expect((await t.call('GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`, user)).status).toBe(404);
      expect((await t.call('PUT', `/api/v1/documents/${documentId}`, user, { title: 'Changed' })).status).toBe(404);
      expect((await t.call('POST', '/api/v1/documents', user, { workspaceId, title: 'New' })).status).toBe(404);
      // The collab server asks here before it lets anyone edit.
      expect((await permission(user)).status).toBe(403);
    }
    // Its published documents go offline with it.
    for (const path of publicPaths()) expect((await t.call('GET', path, null)).status).toBe(404);
    expect(await t.pool.anyFirst(sql.unsafe`SELECT title FROM documents WHERE workspace_id = ${workspaceId}`)).toEqual([
      'Plans',
    ]);

    await archive(false);
    await eventually(async () =>
      expect((await t.call('GET', `/api/v1/documents/${documentId}`, editor)).status).toBe(200),
    );
    expect(await (await permission(editor)).json()).toMatchObject({ data: { canEdit: true, role: 'EDITOR' } });
    for (const path of publicPaths()) expect((await t.call('GET', path, null)).status).toBe(200);
  });
});
