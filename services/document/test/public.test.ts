import { createDocument, ISO_RE, paragraph, type SignedInUser, signInNew, workspaceWith } from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

const PUBLIC_KEYS = [
  'childCount',
  'content',
  'coverImageUrl',
  'hasChildren',
  'icon',
  'id',
  'parentId',
  'title',
  'updatedAt',
  'wordCount',
];
const PUBLIC_LIST_KEYS = ['childCount', 'hasChildren', 'icon', 'id', 'parentId', 'title'];
const NEVER_PUBLIC = [
  'ownerId',
  'workspaceId',
  'isArchived',
  'isTemplate',
  'createdBy',
  'lastEditedBy',
  'collabState',
  'isPublished',
];

describe('publishing and public reads (through the gateway, no credential)', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack();
    [owner, editor, viewer] = await Promise.all(
      ['Olivia Owner', 'Eddie Editor', 'Vic Viewer'].map((n) => signInNew(t, n)),
    );
    const workspace = await workspaceWith(t, owner, [
      [editor, 'EDITOR'],
      [viewer, 'VIEWER'],
    ]);
    ws = workspace.id;
  });
  afterAll(() => t?.stop());

  const doc = (title: string, parentId: string | null = null, extra: Record<string, unknown> = {}) =>
    createDocument(t, editor, { workspaceId: ws, title, parentId, ...extra });
  const publish = (id: string, as: SignedInUser = editor) => t.call('POST', `/api/v1/documents/${id}/publish`, as);
  const unpublish = (id: string, as: SignedInUser = editor) => t.call('POST', `/api/v1/documents/${id}/unpublish`, as);
  const pub = (path: string) => t.call('GET', `/api/v1/public/documents/${path}`, null);

  it('serves nothing until published, then the public fields only', async () => {
    const d = await doc('Handbook', null, {
      icon: '📘',
      coverImageUrl: 'https://img.test/h.png',
      content: [paragraph('Welcome aboard friends')],
    });
    for (const path of [d.id, `${d.id}/children`, `${d.id}/ancestors`]) {
      const res = await pub(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const res = await publish(d.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await t.call('GET', `/api/v1/documents/${d.id}`, viewer)).body.data.isPublished).toBe(true);

    const read = await pub(d.id);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body.data).sort()).toEqual(PUBLIC_KEYS);
    expect(read.body.data).toMatchObject({
      id: d.id,
      title: 'Handbook',
      content: JSON.stringify([paragraph('Welcome aboard friends')]),
      icon: '📘',
      coverImageUrl: 'https://img.test/h.png',
      parentId: null,
      hasChildren: false,
      childCount: 0,
      wordCount: 3,
    });
    expect(read.body.data.updatedAt).toMatch(ISO_RE);
    for (const key of NEVER_PUBLIC) expect(read.body.data).not.toHaveProperty(key);
    // Publishing twice changes nothing.
    expect((await publish(d.id)).status).toBe(200);

    expect((await unpublish(d.id)).status).toBe(200);
    expect((await pub(d.id)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/documents/${d.id}`, viewer)).body.data.isPublished).toBe(false);
  });

  it('lists only published children and counts only them', async () => {
    const p = await doc('Guide');
    const shown = await doc('Shown', p.id);
    const hidden = await doc('Secret draft title', p.id);
    const shownChild = await doc('Shown child', shown.id);
    await doc('Hidden grandchild', shown.id);
    for (const id of [p.id, shown.id, shownChild.id]) await publish(id);

    const parent = (await pub(p.id)).body.data;
    expect(parent).toMatchObject({ hasChildren: true, childCount: 1 });
    const kids = await pub(`${p.id}/children`);
    expect(kids.status).toBe(200);
    expect(kids.body.data).toEqual([
      { id: shown.id, title: 'Shown', icon: null, parentId: p.id, hasChildren: true, childCount: 1 },
    ]);
    expect(Object.keys(kids.body.data[0]).sort()).toEqual(PUBLIC_LIST_KEYS);
    expect(JSON.stringify(kids.body)).not.toContain('Secret draft title');
    expect((await pub(hidden.id)).status).toBe(404);
    expect((await pub(`${hidden.id}/children`)).status).toBe(404);
    // The members' view counts everything.
    expect((await t.call('GET', `/api/v1/documents/${p.id}`, viewer)).body.data.childCount).toBe(2);
  });

  it('gives the unbroken published chain as ancestors, never the title of an unpublished one', async () => {
    const top = await doc('Top published');
    const gap = await doc('Unpublished middle secret', top.id);
    const upper = await doc('Upper', gap.id);
    const leaf = await doc('Leaf', upper.id);
    for (const id of [top.id, upper.id, leaf.id]) await publish(id);

    const chain = await pub(`${leaf.id}/ancestors`);
    expect(chain.status).toBe(200);
    expect(chain.body.data).toEqual([
      { id: upper.id, title: 'Upper', icon: null, parentId: null, hasChildren: true, childCount: 1 },
      { id: leaf.id, title: 'Leaf', icon: null, parentId: upper.id, hasChildren: false, childCount: 0 },
    ]);
    // The document's own parentId does not point at an unpublished parent.
    expect((await pub(upper.id)).body.data.parentId).toBeNull();
    expect((await pub(leaf.id)).body.data.parentId).toBe(upper.id);
    for (const path of [upper.id, leaf.id, `${leaf.id}/ancestors`, `${upper.id}/children`, `${top.id}/children`]) {
      expect(JSON.stringify((await pub(path)).body), path).not.toContain('Unpublished middle secret');
    }
    expect((await pub(`${top.id}/children`)).body.data).toEqual([]);
    expect((await pub(top.id)).body.data).toMatchObject({ hasChildren: false, childCount: 0 });

    await publish(gap.id);
    expect((await pub(`${leaf.id}/ancestors`)).body.data.map((d: any) => d.id)).toEqual([
      top.id,
      gap.id,
      upper.id,
      leaf.id,
    ]);
    expect((await pub(`${top.id}/ancestors`)).body.data).toEqual([
      { id: top.id, title: 'Top published', icon: null, parentId: null, hasChildren: true, childCount: 1 },
    ]);
  });

  it('hides a published document once it or an ancestor is archived', async () => {
    const p = await doc('Archive me');
    const c = await doc('Published child', p.id);
    await publish(p.id);
    await publish(c.id);
    expect((await pub(c.id)).status).toBe(200);
    await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: true });
    for (const path of [p.id, c.id, `${c.id}/ancestors`, `${p.id}/children`])
      expect((await pub(path)).status, path).toBe(404);
    await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: false });
    expect((await pub(c.id)).status).toBe(200);
    expect((await pub(`${p.id}/children`)).body.data.map((d: any) => d.id)).toEqual([c.id]);
  });

  it('needs EDITOR to publish and unpublish, and answers malformed ids with 400', async () => {
    const d = await doc('Guarded');
    expect((await publish(d.id, viewer)).status).toBe(403);
    expect((await pub(d.id)).status).toBe(404);
    await publish(d.id, owner);
    expect((await unpublish(d.id, viewer)).status).toBe(403);
    expect((await pub(d.id)).status).toBe(200);
    expect((await pub('not-a-uuid')).status).toBe(400);
    expect((await pub('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});
