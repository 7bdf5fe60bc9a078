import { createDocument, createWorkspace, type SignedInUser, signInNew, workspaceWith } from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

describe('GET /documents/archived: the documents archived themselves, to find and restore them', () => {
  let t: DocStack;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let stranger: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack();
    let owner: SignedInUser;
    [owner, editor, viewer, stranger] = await Promise.all(
      ['Olga Owner', 'Ezra Editor', 'Vera Viewer', 'Stan Stranger'].map((name) => signInNew(t, name)),
    );
    ws = (
      await workspaceWith(t, owner, [
        [editor, 'EDITOR'],
        [viewer, 'VIEWER'],
      ])
    ).id;
  });
  afterAll(() => t?.stop());

  const doc = (title: string, parentId?: string) => createDocument(t, editor, { workspaceId: ws, title, parentId });
  const archive = (id: string, isArchived = true) => t.call('PUT', `/api/v1/documents/${id}`, editor, { isArchived });
  const archived = (as: SignedInUser | null = viewer, query = `workspaceId=${ws}`) =>
    t.call('GET', `/api/v1/documents/archived?${query}`, as);

  it('lists archive roots newest first with what went with them, not what an ancestor hid, and forgets restored ones', async () => {
    expect((await archived()).body).toEqual({ success: true, data: [] });
    const shelf = await doc('Shelf');
    const book = await doc('Book', shelf.id);
    await doc('Page', book.id);
    const loose = await doc('Loose', shelf.id);
    const old = await doc('Old notes');

    expect((await archive(loose.id)).status).toBe(200);
    expect((await archive(shelf.id)).status).toBe(200);
    expect((await archive(old.id)).status).toBe(200);

    const res = await archived();
    expect(res.status).toBe(200);
    // Book and Page were hidden by Shelf's archiving: restoring Shelf brings them back.
    expect(res.body.data.map((d: { title: string }) => d.title)).toEqual(['Old notes', 'Shelf', 'Loose']);
    expect(res.body.data[1]).toEqual({
      id: shelf.id,
      title: 'Shelf',
      parentId: null,
      workspaceId: ws,
      icon: null,
      descendantCount: 2,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(res.body.data[2]).toMatchObject({ id: loose.id, parentId: shelf.id, descendantCount: 0 });
    expect((await archived(viewer, `workspaceId=${ws}&limit=1`)).body.data.map((d: { id: string }) => d.id)).toEqual([
      old.id,
    ]);

    expect((await archive(shelf.id, false)).status).toBe(200);
    expect((await archived()).body.data.map((d: { title: string }) => d.title)).toEqual(['Old notes', 'Loose']);
  });

  it('answers members only, and validates its query', async () => {
    expect((await archived(stranger)).status).toBe(404);
    expect((await archived(null)).status).toBe(401);
    const other = await createWorkspace(t, stranger);
    expect((await archived(viewer, `workspaceId=${other.id}`)).status).toBe(404);
    for (const query of ['', 'workspaceId=nope', `workspaceId=${ws}&limit=0`, `workspaceId=${ws}&limit=501`]) {
      const res = await archived(viewer, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});
