import { sql } from '@wiki/db';
import {
  // Diffs match blocks by id: blocks with ids of the test's choosing.
  paragraphWithId as block,
  createDocument,
  createWorkspace,
  ISO_RE,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

const SUMMARY_KEYS = [
  'contributors',
  'createdAt',
  'createdBy',
  'documentId',
  'id',
  'name',
  'revision',
  'source',
  'title',
  'wordCount',
];

// ARCHITECTURE 5.16, through the gateway: every change is its own revision here (interval 0).
describe('document history routes', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let admin: SignedInUser;
  let editor: SignedInUser;
  let commenter: SignedInUser;
  let viewer: SignedInUser;
  let stranger: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack({ REVISION_INTERVAL_S: '0' });
    [owner, admin, editor, commenter, viewer, stranger] = await Promise.all(
      ['Olivia Owner', 'Ada Admin', 'Eddie Editor', 'Cora Commenter', 'Vic Viewer', 'Sam Stranger'].map((name) =>
        signInNew(t, name),
      ),
    );
    ws = (
      await workspaceWith(t, owner, [
        [admin, 'ADMIN'],
        [editor, 'EDITOR'],
        [commenter, 'COMMENTER'],
        [viewer, 'VIEWER'],
      ])
    ).id;
  });
  afterAll(() => t?.stop());

  const history = (id: string) => `/api/v1/documents/${id}/revisions`;
  const put = async (as: SignedInUser, id: string, body: object) =>
    expect((await t.call('PUT', `/api/v1/documents/${id}`, as, body)).status).toBe(200);
  const list = async (id: string, as: SignedInUser = viewer, query = '') => {
    const res = await t.call('GET', `${history(id)}${query}`, as);
    expect(res.status).toBe(200);
    return res.body.data as { content: any[]; totalElements: number; totalPages: number; number: number; size: number };
  };
  const rowsOf = (id: string) =>
    t.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM document_revisions WHERE document_id = ${id}`);

  /** A document with `edits` title edits after its creation: edits + 1 revisions. */
  async function documentWithEdits(edits: number, as = editor) {
    const doc = await createDocument(t, as, { workspaceId: ws, title: 'v1', content: [block('a', 'one')] });
    for (let i = 2; i <= edits + 1; i++) await put(as, doc.id, { title: `v${i}` });
    return doc;
  }

  describe('list', () => {
    it('pages the history newest first, in the Page shape, with users named', async () => {
      const doc = await documentWithEdits(4);
      await put(owner, doc.id, { content: [block('a', 'one two three')] });

      const first = await list(doc.id, viewer, '?page=0&size=2');
      expect(first).toMatchObject({ totalElements: 6, totalPages: 3, number: 0, size: 2 });
      expect(first.content.map((r) => r.revision)).toEqual([6, 5]);
      const [latest, before] = first.content;
      expect(Object.keys(latest).sort()).toEqual(SUMMARY_KEYS);
      expect(latest).toMatchObject({
        documentId: doc.id,
        title: 'v5',
        name: null,
        source: 'EDIT',
        wordCount: 3,
        createdBy: { id: owner.id, name: 'Olivia Owner', avatarUrl: null },
        contributors: [{ id: owner.id, name: 'Olivia Owner', avatarUrl: null }],
      });
      expect(latest.createdAt).toMatch(ISO_RE);
      expect(before).toMatchObject({ title: 'v5', createdBy: { id: editor.id, name: 'Eddie Editor' } });

      expect((await list(doc.id, viewer, '?page=1&size=2')).content.map((r) => r.revision)).toEqual([4, 3]);
      const last = await list(doc.id, viewer, '?page=2&size=2');
      expect(last.content.map((r) => r.revision)).toEqual([2, 1]);
      expect(last.content[1]).toMatchObject({ title: 'v1', source: 'EDIT', createdBy: { id: editor.id } });
      expect(await list(doc.id, viewer, '?page=3&size=2')).toMatchObject({ content: [], totalElements: 6 });
      // The defaults: the first page of 20.
      expect(await list(doc.id)).toMatchObject({ number: 0, size: 20, totalElements: 6, totalPages: 1 });
    });

    it('answers 400 to a page or size out of range, 401 without a token', async () => {
      const doc = await documentWithEdits(0);
      for (const query of ['?page=-1', '?size=0', '?size=101', '?page=x']) {
        const res = await t.call('GET', `${history(doc.id)}${query}`, viewer);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
      expect((await t.call('GET', history(doc.id), null)).status).toBe(401);
    });
  });

  describe('read', () => {
    it('answers a revision with the state it holds', async () => {
      const doc = await createDocument(t, editor, {
        workspaceId: ws,
        title: 'Old',
        content: [block('a', 'old text')],
        icon: '📄',
        coverImageUrl: '/covers/old.png',
      });
      await put(editor, doc.id, { title: 'New', content: [block('a', 'new text')], icon: null, coverImageUrl: null });
      const [, oldest] = (await list(doc.id)).content;
      const res = await t.call('GET', `${history(doc.id)}/${oldest.id}`, commenter);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([...SUMMARY_KEYS, 'content', 'coverImageUrl', 'icon'].sort());
      expect(res.body.data).toMatchObject({
        id: oldest.id,
        revision: 1,
        title: 'Old',
        icon: '📄',
        coverImageUrl: '/covers/old.png',
        wordCount: 2,
      });
      expect(JSON.parse(res.body.data.content)).toEqual([block('a', 'old text')]);
    });
  });

  describe('diff', () => {
    it('tells added, removed, changed (word by word) and moved blocks, from the path’s revision to current', async () => {
      const doc = await createDocument(t, editor, {
        workspaceId: ws,
        title: 'Diff',
        content: [block('a', 'alpha'), block('b', 'bravo one'), block('c', 'charlie'), block('d', 'delta')],
      });
      await put(editor, doc.id, {
        content: [block('b', 'bravo two'), block('c', 'charlie'), block('a', 'alpha'), block('e', 'echo')],
      });
      const [, first] = (await list(doc.id)).content;
      const res = await t.call('GET', `${history(doc.id)}/${first.id}/diff?against=current`, viewer);
      expect(res.status).toBe(200);
      const { from, to, blocks } = res.body.data;
      expect({ from, to }).toEqual({ from: 1, to: 2 });
      const byId = Object.fromEntries(blocks.map((b: any) => [b.blockId, b]));
      expect(Object.keys(byId).sort()).toEqual(['a', 'b', 'd', 'e']);
      expect(byId.a).toEqual({ blockId: 'a', change: 'moved' });
      expect(byId.d).toEqual({ blockId: 'd', change: 'removed' });
      expect(byId.e).toEqual({ blockId: 'e', change: 'added' });
      expect(byId.b.change).toBe('changed');
      const ops: Array<{ op: string; text: string }> = byId.b.text;
      const side = (keep: string) =>
        ops
          .filter((o) => o.op === 'equal' || o.op === keep)
          .map((o) => o.text)
          .join('');
      expect(side('delete')).toBe('bravo one');
      expect(side('insert')).toBe('bravo two');
      expect(ops).toContainEqual({ op: 'delete', text: expect.stringContaining('one') });
      expect(ops).toContainEqual({ op: 'insert', text: expect.stringContaining('two') });

      // Against another revision, in either direction; `against` defaults to current.
      const [latest] = (await list(doc.id)).content;
      const back = await t.call('GET', `${history(doc.id)}/${latest.id}/diff?against=${first.id}`, viewer);
      expect(back.status).toBe(200);
      expect(back.body.data).toMatchObject({ from: 2, to: 1 });
      const backById = Object.fromEntries(back.body.data.blocks.map((b: any) => [b.blockId, b.change]));
      expect(backById).toMatchObject({ d: 'added', e: 'removed', b: 'changed' });
      const same = await t.call('GET', `${history(doc.id)}/${latest.id}/diff`, viewer);
      expect(same.body.data).toEqual({ from: 2, to: 2, blocks: [] });
    });

    it('flattens nested blocks, each matched by its own id', async () => {
      const doc = await createDocument(t, editor, {
        workspaceId: ws,
        title: 'Nested',
        content: [block('p', 'parent', [block('k', 'kid one')])],
      });
      await put(editor, doc.id, { content: [block('p', 'parent', [block('k', 'kid two'), block('n', 'new kid')])] });
      const [, first] = (await list(doc.id)).content;
      const res = await t.call('GET', `${history(doc.id)}/${first.id}/diff`, viewer);
      const byId = Object.fromEntries(res.body.data.blocks.map((b: any) => [b.blockId, b.change]));
      expect(byId).toMatchObject({ k: 'changed', n: 'added' });
    });

    it('answers 400 to an against that is neither current nor an id, 404 to one of another document', async () => {
      const doc = await documentWithEdits(1);
      const other = await documentWithEdits(0);
      const [mine] = (await list(doc.id)).content;
      const [theirs] = (await list(other.id)).content;
      expect((await t.call('GET', `${history(doc.id)}/${mine.id}/diff?against=latest`, viewer)).status).toBe(400);
      expect((await t.call('GET', `${history(doc.id)}/${mine.id}/diff?against=${theirs.id}`, viewer)).status).toBe(404);
      expect((await t.call('GET', `${history(doc.id)}/${theirs.id}/diff`, viewer)).status).toBe(404);
    });
  });

  describe('naming', () => {
    it('names the latest revision when it holds the current state, else keeps a named copy', async () => {
      const doc = await documentWithEdits(1);
      const [latest] = (await list(doc.id)).content;
      const named = await t.call('POST', history(doc.id), editor, { name: 'Before the rewrite' });
      expect(named.status).toBe(201);
      expect(Object.keys(named.body.data).sort()).toEqual(SUMMARY_KEYS);
      expect(named.body.data).toMatchObject({ id: latest.id, revision: 2, name: 'Before the rewrite' });
      expect(await rowsOf(doc.id)).toBe(2);

      // The latest row is named now: a second name is a copy, by the caller.
      const copy = await t.call('POST', history(doc.id), owner, { name: 'Again' });
      expect(copy.status).toBe(201);
      expect(copy.body.data).toMatchObject({
        revision: 2,
        name: 'Again',
        title: 'v2',
        source: 'EDIT',
        createdBy: { id: owner.id, name: 'Olivia Owner' },
        contributors: [{ id: owner.id, name: 'Olivia Owner', avatarUrl: null }],
      });
      expect(copy.body.data.id).not.toBe(latest.id);
      expect((await list(doc.id)).content.map((r) => [r.revision, r.name])).toEqual([
        [2, 'Again'],
        [2, 'Before the rewrite'],
        [1, null],
      ]);

      // The next change starts a new row; naming it again names that row.
      await put(editor, doc.id, { title: 'v3' });
      const third = await t.call('POST', history(doc.id), editor, { name: 'Third' });
      expect(third.body.data).toMatchObject({ revision: 3, name: 'Third', createdBy: { id: editor.id } });
      expect(await rowsOf(doc.id)).toBe(4);
    });

    it('answers 400 to a missing, blank or too long name, and changes nothing', async () => {
      const doc = await documentWithEdits(0);
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 3 }]) {
        const res = await t.call('POST', history(doc.id), editor, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
      expect((await list(doc.id)).content.map((r) => r.name)).toEqual([null]);
    });
  });

  describe('restore', () => {
    it('makes the revision’s fields current as a new RESTORE revision, with document.updated', async () => {
      const doc = await createDocument(t, editor, {
        workspaceId: ws,
        title: 'Plan A',
        content: [block('a', 'first plan')],
        icon: '🅰️',
      });
      await put(editor, doc.id, { title: 'Plan B', content: [block('a', 'second plan'), block('b', 'more')] });
      const [, first] = (await list(doc.id)).content;

      const res = await t.call('POST', `${history(doc.id)}/${first.id}/restore`, editor);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: doc.id, title: 'Plan A', icon: '🅰️', wordCount: 2, revision: 3 });
      // The answer's ETag is the revision it carries, as GET and PUT answers' are: what If-Match takes back.
      expect(res.headers.etag).toBe(`"${res.body.data.revision}"`);
      expect(JSON.parse(res.body.data.content)).toEqual([block('a', 'first plan')]);
      const [restored] = (await list(doc.id)).content;
      expect(restored).toMatchObject({ revision: 3, source: 'RESTORE', title: 'Plan A', createdBy: { id: editor.id } });

      const updated = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id);
      expect(updated.at(-1)?.data).toMatchObject({
        revision: 3,
        title: 'Plan A',
        plainText: 'first plan',
        changed: ['title', 'content'],
      });

      // Restoring the state the document already holds changes nothing.
      const again = await t.call('POST', `${history(doc.id)}/${first.id}/restore`, editor);
      expect(again.status).toBe(200);
      expect(again.body.data).toMatchObject({ title: 'Plan A', revision: 3 });
      expect(again.headers.etag).toBe('"3"');
      expect(await rowsOf(doc.id)).toBe(3);
      expect((await t.outbox('document.updated')).filter((e) => e.data.id === doc.id)).toHaveLength(updated.length);
    });

    it('answers 409 for an archived document and changes nothing', async () => {
      const doc = await documentWithEdits(1);
      const [, first] = (await list(doc.id)).content;
      await put(editor, doc.id, { isArchived: true });
      const res = await t.call('POST', `${history(doc.id)}/${first.id}/restore`, editor);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', reason: 'DOCUMENT_ARCHIVED' });
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, editor)).body.data.title).toBe('v2');
      expect(await rowsOf(doc.id)).toBe(2);
    });
  });

  describe('delete', () => {
    it('deletes a revision (204), but not the only one holding the current state (409)', async () => {
      const doc = await documentWithEdits(2);
      const [current, middle] = (await list(doc.id)).content;
      const res = await t.call('DELETE', `${history(doc.id)}/${middle.id}`, admin);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await list(doc.id)).content.map((r) => r.revision)).toEqual([3, 1]);
      expect((await t.call('GET', `${history(doc.id)}/${middle.id}`, admin)).status).toBe(404);
      expect((await t.call('DELETE', `${history(doc.id)}/${middle.id}`, admin)).status).toBe(404);

      const refused = await t.call('DELETE', `${history(doc.id)}/${current.id}`, owner);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'CONFLICT', reason: 'REVISION_CURRENT' });
      // Naming it names that row; a second name is a copy, which holds the current state too:
      // then the first row may go.
      expect((await t.call('POST', history(doc.id), editor, { name: 'Kept' })).body.data.id).toBe(current.id);
      expect((await t.call('DELETE', `${history(doc.id)}/${current.id}`, owner)).status).toBe(409);
      expect((await t.call('POST', history(doc.id), editor, { name: 'Copy' })).status).toBe(201);
      expect((await t.call('DELETE', `${history(doc.id)}/${current.id}`, owner)).status).toBe(204);
      expect((await list(doc.id)).content.map((r) => [r.revision, r.name])).toEqual([
        [3, 'Copy'],
        [1, null],
      ]);
    });
  });

  describe('roles and visibility', () => {
    it('lets readers list, read and diff; EDITOR and up name and restore; ADMIN and up delete', async () => {
      const doc = await documentWithEdits(1);
      const [, first] = (await list(doc.id)).content;
      const rev = `${history(doc.id)}/${first.id}`;
      for (const user of [viewer, commenter, editor, admin, owner]) {
        expect((await t.call('GET', history(doc.id), user)).status).toBe(200);
        expect((await t.call('GET', rev, user)).status).toBe(200);
        expect((await t.call('GET', `${rev}/diff`, user)).status).toBe(200);
      }
      for (const user of [viewer, commenter]) {
        for (const [method, path, body] of [
          ['POST', history(doc.id), { name: 'Mine' }],
          ['POST', `${rev}/restore`, undefined],
          ['DELETE', rev, undefined],
        ] as const) {
          const res = await t.call(method, path, user, body);
          expect(res.status, `${method} ${path}`).toBe(403);
          expect(res.body.error.code).toBe('FORBIDDEN');
        }
      }
      expect((await t.call('DELETE', rev, editor)).status).toBe(403);
      for (const user of [editor, admin, owner]) {
        expect((await t.call('POST', history(doc.id), user, { name: `By ${user.id}` })).status).toBe(201);
        expect((await t.call('POST', `${rev}/restore`, user)).status).toBe(200);
      }
      // Rows 1 and 2, the editor's restore (3); the admin named row 3, the owner a copy of it; the
      // later restores found nothing to change.
      const named = (await list(doc.id)).content.map((r) => [r.revision, r.name]);
      expect(named).toEqual([
        [3, `By ${owner.id}`],
        [3, `By ${admin.id}`],
        [2, `By ${editor.id}`],
        [1, null],
      ]);
      const [copy, , second] = (await list(doc.id)).content;
      expect((await t.call('DELETE', `${history(doc.id)}/${copy.id}`, admin)).status).toBe(204);
      expect((await t.call('DELETE', `${history(doc.id)}/${second.id}`, owner)).status).toBe(204);
    });

    it('answers 404 to non-members, for unknown ids and for a revision of another document or workspace', async () => {
      const doc = await documentWithEdits(1);
      const sibling = await documentWithEdits(0);
      const elsewhere = await createDocument(t, stranger, {
        workspaceId: (await createWorkspace(t, stranger)).id,
        title: 'Theirs',
      });
      const [mine] = (await list(doc.id)).content;
      const [siblings] = (await list(sibling.id)).content;
      const [theirs] = (await list(elsewhere.id, stranger)).content;
      const unknown = '00000000-0000-4000-8000-000000000000';

      const calls = (id: string, revisionId: string) =>
        [
          ['GET', history(id)],
          ['GET', `${history(id)}/${revisionId}`],
          ['GET', `${history(id)}/${revisionId}/diff`],
          ['POST', history(id), { name: 'x' }],
          ['POST', `${history(id)}/${revisionId}/restore`],
          ['DELETE', `${history(id)}/${revisionId}`],
        ] as const;
      for (const [method, path, body] of calls(doc.id, mine.id)) {
        expect((await t.call(method, path, stranger, body)).status, `stranger ${method} ${path}`).toBe(404);
      }
      for (const revisionId of [siblings.id, theirs.id, unknown]) {
        for (const [method, path] of calls(doc.id, revisionId)
          .slice(1)
          .filter(([, p]) => p.includes(revisionId))) {
          const res = await t.call(method, path, owner);
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body.error.code).toBe('NOT_FOUND');
        }
      }
      for (const [method, path, body] of calls(unknown, mine.id)) {
        expect((await t.call(method, path, owner, body)).status, `${method} ${path}`).toBe(404);
      }
      expect((await t.call('GET', `${history(doc.id)}/not-a-uuid`, owner)).status).toBe(400);
      expect((await t.call('GET', `${history('not-a-uuid')}`, owner)).status).toBe(400);
      // Nothing of theirs changed.
      expect(await rowsOf(elsewhere.id)).toBe(1);
      expect(await rowsOf(doc.id)).toBe(2);
    });

    it('gives no history in the public view of a published document', async () => {
      const doc = await documentWithEdits(1);
      expect((await t.call('POST', `/api/v1/documents/${doc.id}/publish`, editor)).status).toBe(200);
      expect((await t.call('GET', `/api/v1/public/documents/${doc.id}`, null)).status).toBe(200);
      const [first] = (await list(doc.id)).content;
      for (const path of [
        `/api/v1/public/documents/${doc.id}/revisions`,
        `/api/v1/public/documents/${doc.id}/revisions/${first.id}`,
      ]) {
        expect((await t.call('GET', path, null)).status).toBe(404);
      }
      expect((await t.call('GET', history(doc.id), null)).status).toBe(401);
    });
  });

  describe('deleting documents', () => {
    it('deletes the history with its document, and with every document of a deleted subtree', async () => {
      const parent = await documentWithEdits(1);
      const child = await createDocument(t, editor, { workspaceId: ws, parentId: parent.id, title: 'Child' });
      const grandchild = await createDocument(t, editor, { workspaceId: ws, parentId: child.id, title: 'Grandchild' });
      await put(editor, grandchild.id, { title: 'Grandchild 2' });
      const single = await documentWithEdits(2);

      expect((await t.call('DELETE', `/api/v1/documents/${single.id}`, editor)).status).toBe(200);
      expect(await rowsOf(single.id)).toBe(0);

      expect(await rowsOf(grandchild.id)).toBe(2);
      expect((await t.call('DELETE', `/api/v1/documents/${parent.id}/cascade`, editor)).status).toBe(200);
      for (const id of [parent.id, child.id, grandchild.id]) expect(await rowsOf(id)).toBe(0);
    });
  });

  it('describes the history routes in OpenAPI with their error answers', async () => {
    const spec = (await (await fetch(`${t.serviceUrls.document}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const base = '/api/v1/documents/{id}/revisions';
    const statuses = (path: string, method: string) => Object.keys(spec.paths[path]?.[method]?.responses ?? {}).sort();
    expect(statuses(base, 'get')).toEqual(['200', '400', '401', '404', '503']);
    expect(statuses(base, 'post')).toEqual(['201', '400', '401', '403', '404', '503']);
    expect(statuses(`${base}/{revisionId}`, 'get')).toEqual(['200', '400', '401', '404', '503']);
    expect(statuses(`${base}/{revisionId}/diff`, 'get')).toEqual(['200', '400', '401', '404', '503']);
    expect(statuses(`${base}/{revisionId}/restore`, 'post')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '503',
    ]);
    expect(statuses(`${base}/{revisionId}`, 'delete')).toEqual(['204', '400', '401', '403', '404', '409', '503']);
    // A restore answers as GET and PUT do, with the revision as ETag.
    const restored = spec.paths[`${base}/{revisionId}/restore`]?.post?.responses['200'] as { headers?: object };
    expect(Object.keys(restored.headers ?? {})).toEqual(['etag']);
  });
});
