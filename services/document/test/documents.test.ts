import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  ISO_RE,
  paragraph,
  type SignedInUser,
  signInNew,
  UUID_RE,
  workspaceWith,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

const DOCUMENT_KEYS = [
  'childCount',
  'content',
  'coverImageUrl',
  'createdAt',
  'createdBy',
  'createdByUser',
  'excerpt',
  'hasChildren',
  'icon',
  'id',
  'isArchived',
  'isPublished',
  'isTemplate',
  'lastEditedBy',
  'lastEditedByUser',
  'openCommentCount',
  'ownerId',
  'parentId',
  'revision',
  'title',
  'updatedAt',
  'wordCount',
  'workspaceId',
];
const LIST_KEYS = [
  'childCount',
  'hasChildren',
  'icon',
  'id',
  'openCommentCount',
  'parentId',
  'title',
  'updatedAt',
  'workspaceId',
];

describe('documents: CRUD, fields, limits and roles (through the gateway)', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let admin: SignedInUser;
  let editor: SignedInUser;
  let commenter: SignedInUser;
  let viewer: SignedInUser;
  let stranger: SignedInUser;
  let ws: string;
  let otherWs: string;

  beforeAll(async () => {
    t = await startDocStack();
    [owner, stranger, admin, editor, commenter, viewer] = await Promise.all(
      ['Olivia Owner', 'Sam Stranger', 'Ada Admin', 'Eddie Editor', 'Cora Commenter', 'Vic Viewer'].map((name) =>
        signInNew(t, name),
      ),
    );
    const workspace = await workspaceWith(t, owner, [
      [admin, 'ADMIN'],
      [editor, 'EDITOR'],
      [commenter, 'COMMENTER'],
      [viewer, 'VIEWER'],
    ]);
    ws = workspace.id;
    otherWs = (await createWorkspace(t, stranger)).id;
  });
  afterAll(() => t?.stop());

  describe('create and read', () => {
    it('returns every field of DocumentResponse with 201, content as a string', async () => {
      const blocks = [
        { type: 'heading', props: { level: 1 }, content: [{ type: 'text', text: 'Plan', styles: {} }] },
        paragraph('Ship it this week.'),
      ];
      const res = await t.call('POST', '/api/v1/documents', editor, {
        workspaceId: ws,
        title: 'Roadmap',
        content: blocks,
        icon: '🗺️',
        coverImageUrl: 'https://img.test/c.png',
      });
      expect(res.status).toBe(201);
      const doc = res.body.data;
      expect(res.body.success).toBe(true);
      expect(Object.keys(doc).sort()).toEqual(DOCUMENT_KEYS);
      expect(doc.id).toMatch(UUID_RE);
      expect(doc).toMatchObject({
        title: 'Roadmap',
        content: JSON.stringify(blocks),
        excerpt: 'Plan\nShip it this week.',
        wordCount: 5,
        parentId: null,
        workspaceId: ws,
        ownerId: editor.id,
        icon: '🗺️',
        coverImageUrl: 'https://img.test/c.png',
        isTemplate: false,
        isArchived: false,
        isPublished: false,
        hasChildren: false,
        childCount: 0,
        openCommentCount: 0,
        createdBy: editor.id,
        lastEditedBy: editor.id,
        createdByUser: { id: editor.id, name: 'Eddie Editor', avatarUrl: null },
        lastEditedByUser: { id: editor.id, name: 'Eddie Editor', avatarUrl: null },
      });
      expect(doc.createdAt).toMatch(ISO_RE);
      expect(doc.updatedAt).toMatch(ISO_RE);

      const read = await t.call('GET', `/api/v1/documents/${doc.id}`, viewer);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(doc);
    });

    it('accepts content as a string holding the array, and returns the same string form', async () => {
      const blocks = [paragraph('one two'), paragraph('three')];
      const fromString = await createDocument(t, editor, {
        workspaceId: ws,
        title: 'S',
        content: JSON.stringify(blocks, null, 2),
      });
      const fromArray = await createDocument(t, editor, { workspaceId: ws, title: 'A', content: blocks });
      expect(typeof fromString.content).toBe('string');
      expect(fromString.content).toBe(fromArray.content);
      expect(JSON.parse(fromString.content)).toEqual(blocks);
      expect(fromString.wordCount).toBe(3);
    });

    it('defaults: title "Untitled", empty content, no icon or cover', async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws });
      expect(doc).toMatchObject({
        title: 'Untitled',
        content: '[]',
        excerpt: '',
        wordCount: 0,
        icon: null,
        coverImageUrl: null,
      });
    });

    it('derives plain text from every block type: excerpt (200 chars) and word count', async () => {
      const text = (t: string) => ({ type: 'text', text: t, styles: {} });
      const blocks = [
        {
          type: 'table',
          content: {
            type: 'tableContent',
            rows: [{ cells: [[text('Name')], { type: 'tableCell', content: [text('Role')] }] }],
          },
        },
        {
          type: 'checkListItem',
          props: { checked: false },
          content: [text('todo')],
          children: [{ type: 'quote', content: [text('nested quote')] }],
        },
        {
          type: 'paragraph',
          content: [
            { type: 'link', href: 'https://x.test', content: [text('a link')] },
            text(' '),
            { type: 'mention', props: { user: 'Ada' } },
          ],
        },
        { type: 'image', props: { url: 'https://img.test/a.png', caption: 'a caption' } },
        { type: 'codeBlock', props: { language: 'ts' }, content: [text('let x')] },
        { type: 'paragraph', content: [text('w '.repeat(200))] },
      ];
      const doc = await createDocument(t, editor, { workspaceId: ws, content: blocks });
      const expectedText = `Name\tRole\ntodo\nnested quote\na link @Ada\na caption\nlet x\n${'w '.repeat(200)}`;
      expect(doc.excerpt).toBe(expectedText.slice(0, 200));
      expect(doc.wordCount).toBe(12 + 200);
    });

    it('puts a new document last among its siblings and counts children', async () => {
      const parent = await createDocument(t, editor, { workspaceId: ws, title: 'Parent' });
      const a = await createDocument(t, editor, { workspaceId: ws, parentId: parent.id, title: 'a' });
      const b = await createDocument(t, owner, { workspaceId: ws, parentId: parent.id, title: 'b' });
      const c = await createDocument(t, admin, { workspaceId: ws, parentId: parent.id, title: 'c' });
      const children = await t.call('GET', `/api/v1/documents/${parent.id}/children`, viewer);
      expect(children.status).toBe(200);
      expect(children.body.data.map((d: any) => d.id)).toEqual([a.id, b.id, c.id]);
      expect(Object.keys(children.body.data[0]).sort()).toEqual(LIST_KEYS);
      const byParent = await t.call('GET', `/api/v1/documents?workspaceId=${ws}&parentId=${parent.id}`, viewer);
      expect(byParent.body.data).toEqual(children.body.data);

      const read = (await t.call('GET', `/api/v1/documents/${parent.id}`, viewer)).body.data;
      expect(read).toMatchObject({ hasChildren: true, childCount: 3 });
      const roots = (await t.call('GET', `/api/v1/documents?workspaceId=${ws}`, viewer)).body.data;
      expect(roots.every((d: any) => d.parentId === null)).toBe(true);
      expect(roots.find((d: any) => d.id === parent.id)).toMatchObject({
        hasChildren: true,
        childCount: 3,
        workspaceId: ws,
        title: 'Parent',
      });
      expect(roots.find((d: any) => d.id === a.id)).toBeUndefined();
      // "null" and empty parentId also mean the roots.
      expect((await t.call('GET', `/api/v1/documents?workspaceId=${ws}&parentId=null`, viewer)).body.data).toEqual(
        roots,
      );
    });

    it('answers a list under a parentId that is no document of the workspace with 404, like /children', async () => {
      const parent = await createDocument(t, editor, { workspaceId: ws, title: 'Listed parent' });
      const child = await createDocument(t, editor, { workspaceId: ws, title: 'Listed child', parentId: parent.id });
      const list = (parentId: string) =>
        t.call('GET', `/api/v1/documents?workspaceId=${ws}&parentId=${parentId}`, viewer);
      expect((await list(parent.id)).body.data.map((d: any) => d.id)).toEqual([child.id]);
      // An existing document without children: an empty list.
      const empty = await list(child.id);
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual([]);
      const foreign = await createDocument(t, stranger, { workspaceId: otherWs, title: 'Foreign parent' });
      await createDocument(t, stranger, { workspaceId: otherWs, title: 'Foreign child', parentId: foreign.id });
      for (const id of ['00000000-0000-4000-8000-000000000000', foreign.id]) {
        const res = await list(id);
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect((await t.call('GET', `/api/v1/documents/${id}/children`, viewer)).status, id).toBe(404);
      }
      // An archived parent: an empty list, as /children answers.
      await t.call('PUT', `/api/v1/documents/${parent.id}`, editor, { isArchived: true });
      for (const path of [
        `/api/v1/documents?workspaceId=${ws}&parentId=${parent.id}`,
        `/api/v1/documents/${parent.id}/children`,
      ]) {
        const res = await t.call('GET', path, viewer);
        expect(res.status, path).toBe(200);
        expect(res.body.data).toEqual([]);
      }
    });

    it('lists ancestors from the root down to the document itself, and builds the tree', async () => {
      const root = await createDocument(t, editor, { workspaceId: ws, title: 'Root' });
      const mid = await createDocument(t, editor, { workspaceId: ws, parentId: root.id, title: 'Mid' });
      const leaf = await createDocument(t, editor, { workspaceId: ws, parentId: mid.id, title: 'Leaf', icon: '🍃' });
      const crumbs = await t.call('GET', `/api/v1/documents/${leaf.id}/ancestors`, viewer);
      expect(crumbs.status).toBe(200);
      expect(crumbs.body.data).toEqual([
        { id: root.id, title: 'Root' },
        { id: mid.id, title: 'Mid' },
        { id: leaf.id, title: 'Leaf' },
      ]);
      expect((await t.call('GET', `/api/v1/documents/${root.id}/ancestors`, viewer)).body.data).toEqual([
        { id: root.id, title: 'Root' },
      ]);

      const tree = await t.call('GET', `/api/v1/documents/tree?workspaceId=${ws}`, viewer);
      expect(tree.status).toBe(200);
      const node = tree.body.data.find((n: any) => n.id === root.id);
      expect(node).toEqual({
        id: root.id,
        title: 'Root',
        parentId: null,
        workspaceId: ws,
        icon: null,
        updatedAt: root.updatedAt,
        children: [
          {
            id: mid.id,
            title: 'Mid',
            parentId: root.id,
            workspaceId: ws,
            icon: null,
            updatedAt: mid.updatedAt,
            children: [
              {
                id: leaf.id,
                title: 'Leaf',
                parentId: mid.id,
                workspaceId: ws,
                icon: '🍃',
                updatedAt: leaf.updatedAt,
                children: [],
              },
            ],
          },
        ],
      });
      // The tree holds exactly the workspace's documents, each once.
      const ids: string[] = [];
      const walk = (nodes: any[]) => {
        for (const n of nodes) {
          ids.push(n.id);
          walk(n.children);
        }
      };
      walk(tree.body.data);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toContain(leaf.id);
    });
  });

  describe('update', () => {
    it('changes only the given fields and records the last editor', async () => {
      const doc = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Before',
        icon: '📄',
        coverImageUrl: 'https://img.test/1.png',
        content: [paragraph('old text')],
      });
      const res = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, {
        title: 'After',
        content: JSON.stringify([paragraph('brand new words here')]),
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        title: 'After',
        icon: '📄',
        coverImageUrl: 'https://img.test/1.png',
        content: JSON.stringify([paragraph('brand new words here')]),
        excerpt: 'brand new words here',
        wordCount: 4,
        createdBy: owner.id,
        lastEditedBy: editor.id,
        createdByUser: { id: owner.id, name: 'Olivia Owner', avatarUrl: null },
        lastEditedByUser: { id: editor.id, name: 'Eddie Editor', avatarUrl: null },
      });
      expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(doc.updatedAt));
      const cleared = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { icon: null, coverImageUrl: null });
      expect(cleared.body.data).toMatchObject({ title: 'After', icon: null, coverImageUrl: null });
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data).toEqual(cleared.body.data);
      // An empty body changes nothing.
      const same = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, {});
      expect(same.status).toBe(200);
      expect(same.body.data).toEqual(cleared.body.data);
    });

    it('treats content null as an empty document, as create does', async () => {
      const created = await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, content: null });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ content: '[]', excerpt: '', wordCount: 0 });
      const doc = await createDocument(t, editor, { workspaceId: ws, content: [paragraph('some words')] });
      const res = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { content: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ content: '[]', excerpt: '', wordCount: 0 });
    });

    it('keeps an archived document read-only until restored: edits are 409, a restore may carry edits', async () => {
      const doc = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Shelved',
        icon: '📦',
        content: [paragraph('kept as is')],
      });
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { isArchived: true })).status).toBe(200);
      const before = (await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data;
      const eventsBefore = (await t.outbox()).length;
      for (const body of [
        { title: 'Edited' },
        { content: [paragraph('new')] },
        { content: null },
        { icon: null },
        { coverImageUrl: 'https://img.test/x.png' },
        { title: 'Edited', isArchived: true },
      ]) {
        const res = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, body);
        expect(res.status, JSON.stringify(body)).toBe(409);
        expect(res.body.error).toMatchObject({
          code: 'CONFLICT',
          reason: 'DOCUMENT_ARCHIVED',
          message: 'This document is archived; restore it before editing it',
        });
      }
      const publish = await t.call('POST', `/api/v1/documents/${doc.id}/publish`, editor);
      expect(publish.status).toBe(409);
      expect(publish.body.error).toMatchObject({
        code: 'CONFLICT',
        reason: 'DOCUMENT_ARCHIVED',
        message: 'This document is archived; restore it before publishing it',
      });
      // Archiving again, an empty body and unpublishing change nothing and are fine.
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { isArchived: true })).status).toBe(200);
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, {})).status).toBe(200);
      expect((await t.call('POST', `/api/v1/documents/${doc.id}/unpublish`, editor)).status).toBe(200);
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data).toEqual(before);
      expect(await t.outbox()).toHaveLength(eventsBefore);

      // Restoring with edits in the same request: restored first, then changed.
      const back = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, {
        isArchived: false,
        title: 'Back',
        content: [paragraph('fresh words')],
      });
      expect(back.status).toBe(200);
      expect(back.body.data).toMatchObject({
        isArchived: false,
        title: 'Back',
        excerpt: 'fresh words',
        icon: '📦',
        lastEditedBy: editor.id,
      });
      const types = (await t.outbox())
        .slice(eventsBefore)
        .filter((e) => e.data.id === doc.id)
        .map((e) => e.type);
      expect(types).toEqual(['document.restored', 'document.updated']);
      expect((await t.call('POST', `/api/v1/documents/${doc.id}/publish`, editor)).status).toBe(200);
    });

    it('decides an edit racing an archiving under the row lock: never an edit after the archiving', async () => {
      for (let round = 0; round < 6; round++) {
        const doc = await createDocument(t, editor, { workspaceId: ws, title: `race ${round}` });
        const [edit, archive] = await Promise.all([
          t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { title: `edited ${round}` }),
          t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { isArchived: true }),
        ]);
        expect(archive.status).toBe(200);
        expect([200, 409]).toContain(edit.status);
        const types = (await t.outbox()).filter((e) => e.data.id === doc.id).map((e) => e.type);
        expect(types).toEqual(
          edit.status === 200
            ? ['document.created', 'document.updated', 'document.archived']
            : ['document.created', 'document.archived'],
        );
        expect((await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data.title).toBe(
          edit.status === 200 ? `edited ${round}` : `race ${round}`,
        );
      }
    });

    it('still deletes an archived document, alone or with its subtree', async () => {
      const alone = await createDocument(t, editor, { workspaceId: ws, title: 'archived alone' });
      const top = await createDocument(t, editor, { workspaceId: ws, title: 'archived top' });
      const below = await createDocument(t, editor, { workspaceId: ws, title: 'below', parentId: top.id });
      for (const d of [alone, top]) await t.call('PUT', `/api/v1/documents/${d.id}`, editor, { isArchived: true });
      expect((await t.call('DELETE', `/api/v1/documents/${alone.id}`, editor)).status).toBe(200);
      expect((await t.call('DELETE', `/api/v1/documents/${top.id}/cascade`, editor)).status).toBe(200);
      for (const d of [alone, top, below])
        expect((await t.call('GET', `/api/v1/documents/${d.id}`, viewer)).status).toBe(404);
    });
  });

  describe('limits and validation', () => {
    it('title at most 500 characters, icon at most 50', async () => {
      expect(
        (await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, title: 'x'.repeat(500) })).status,
      ).toBe(201);
      const long = await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, title: 'x'.repeat(501) });
      expect(long.status).toBe(400);
      expect(long.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'title', message: 'must be at most 500 characters' }],
      });
      expect(
        (await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, icon: 'i'.repeat(50) })).status,
      ).toBe(201);
      expect(
        (await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, icon: 'i'.repeat(51) })).status,
      ).toBe(400);
      const doc = await createDocument(t, editor, { workspaceId: ws });
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { title: 'y'.repeat(501) })).status).toBe(400);
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { icon: 'i'.repeat(51) })).status).toBe(400);
      expect(
        (await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { title: 'y'.repeat(500), icon: 'i'.repeat(50) }))
          .status,
      ).toBe(200);
    });

    it('content: 2 MiB passes, more is 413; a body over 3 MiB is 413; malformed content is 400', async () => {
      const overhead = JSON.stringify([paragraph('')]).length;
      const max = 2 * 1024 * 1024;
      const atLimit = await t.call('POST', '/api/v1/documents', editor, {
        workspaceId: ws,
        content: [paragraph('a'.repeat(max - overhead))],
      });
      expect(atLimit.status).toBe(201);
      expect(atLimit.body.data.content.length).toBe(max);
      const over = await t.call('POST', '/api/v1/documents', editor, {
        workspaceId: ws,
        content: [paragraph('a'.repeat(max - overhead + 1))],
      });
      expect(over.status).toBe(413);
      expect(over.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      const overAsString = await t.call('PUT', `/api/v1/documents/${atLimit.body.data.id}`, editor, {
        content: JSON.stringify([paragraph('a'.repeat(max))]),
      });
      expect(overAsString.status).toBe(413);
      const huge = await t.call('POST', '/api/v1/documents', editor, {
        workspaceId: ws,
        title: 'x',
        content: [paragraph('a'.repeat(3 * 1024 * 1024))],
      });
      expect(huge.status).toBe(413);

      for (const content of [
        'not json',
        '{"type":"paragraph"}',
        { type: 'paragraph' },
        [{ content: [] }],
        [paragraph('ok'), 7],
        42,
      ]) {
        const bad = await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, content });
        expect(bad.status, JSON.stringify(content)).toBe(400);
        expect(bad.body.error.code).toBe('VALIDATION_ERROR');
      }
      const invalidJson = await t.request('POST', '/api/v1/documents', {
        token: editor.token,
        body: '{"workspaceId": ',
      });
      expect(invalidJson.status).toBe(400);
    });

    it('coverImageUrl: http(s) URLs and same-origin paths only, at most 2048 characters; null clears it', async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws });
      for (const url of [
        'https://img.test/c.png',
        'http://img.test/c.png',
        '/api/v1/attachments/file?key=workspaces%2Fa%2Fb.png',
      ]) {
        const created = await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, coverImageUrl: url });
        expect(created.status, url).toBe(201);
        expect(created.body.data.coverImageUrl).toBe(url);
        const updated = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { coverImageUrl: url });
        expect(updated.status, url).toBe(200);
        expect(updated.body.data.coverImageUrl).toBe(url);
      }
      const eventsBefore = (await t.outbox()).length;
      for (const url of [
        'javascript:alert(1)',
        ' javascript:alert(1)',
        'data:image/png;base64,AAAA',
        '//evil.test/c.png',
        '/\\evil.test/c.png',
        'img.png',
        'ftp://img.test/c.png',
        '',
      ]) {
        for (const res of [
          await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, coverImageUrl: url }),
          await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { coverImageUrl: url }),
        ]) {
          expect(res.status, url).toBe(400);
          expect(res.body.error.code).toBe('VALIDATION_ERROR');
          expect(res.body.error.details[0].field).toBe('coverImageUrl');
        }
      }
      expect(await t.outbox()).toHaveLength(eventsBefore);
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data.coverImageUrl).toBe(
        '/api/v1/attachments/file?key=workspaces%2Fa%2Fb.png',
      );
      const long = `https://img.test/${'a'.repeat(2048 - 'https://img.test/'.length)}`;
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { coverImageUrl: long })).status).toBe(200);
      const tooLong = await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { coverImageUrl: `${long}a` });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.error.details[0].field).toBe('coverImageUrl');
      expect(
        (await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { coverImageUrl: null })).body.data.coverImageUrl,
      ).toBeNull();
    });

    it('refuses malformed ids, a missing workspaceId and a parent from another workspace', async () => {
      expect((await t.call('GET', '/api/v1/documents/not-a-uuid', viewer)).status).toBe(400);
      expect((await t.call('GET', '/api/v1/documents?workspaceId=nope', viewer)).status).toBe(400);
      expect((await t.call('GET', '/api/v1/documents', viewer)).status).toBe(400);
      expect((await t.call('GET', '/api/v1/documents/tree', viewer)).status).toBe(400);
      expect((await t.call('POST', '/api/v1/documents', editor, { title: 'no workspace' })).status).toBe(400);
      const foreign = await createDocument(t, stranger, { workspaceId: otherWs, title: 'Foreign' });
      const eventsBefore = (await t.outbox('document.created')).length;
      const res = await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, parentId: foreign.id });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { field: 'parentId', message: 'must be a document of the same workspace' },
      ]);
      expect(
        (
          await t.call('POST', '/api/v1/documents', editor, {
            workspaceId: ws,
            parentId: '00000000-0000-4000-8000-000000000000',
          })
        ).status,
      ).toBe(400);
      // The event is written by the insert's statement: a refused insert leaves no event behind.
      expect(await t.outbox('document.created')).toHaveLength(eventsBefore);
      expect((await t.call('GET', '/api/v1/documents/00000000-0000-4000-8000-000000000000', viewer)).status).toBe(404);
    });
  });

  describe('roles (ARCHITECTURE 3)', () => {
    it('lets every member read, and hides everything from non-members with 404', async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Readable' });
      for (const u of [owner, admin, editor, commenter, viewer]) {
        expect((await t.call('GET', `/api/v1/documents/${doc.id}`, u)).status).toBe(200);
        expect((await t.call('GET', `/api/v1/documents/${doc.id}/children`, u)).status).toBe(200);
        expect((await t.call('GET', `/api/v1/documents/${doc.id}/ancestors`, u)).status).toBe(200);
        expect((await t.call('GET', `/api/v1/documents?workspaceId=${ws}`, u)).status).toBe(200);
        expect((await t.call('GET', `/api/v1/documents/tree?workspaceId=${ws}`, u)).status).toBe(200);
      }
      for (const [method, path, body] of [
        ['GET', `/api/v1/documents/${doc.id}`],
        ['GET', `/api/v1/documents/${doc.id}/children`],
        ['GET', `/api/v1/documents/${doc.id}/ancestors`],
        ['GET', `/api/v1/documents?workspaceId=${ws}`],
        ['GET', `/api/v1/documents/tree?workspaceId=${ws}`],
        ['POST', '/api/v1/documents', { workspaceId: ws }],
        ['PUT', `/api/v1/documents/${doc.id}`, { title: 'x' }],
        ['PUT', `/api/v1/documents/${doc.id}/move`, { parentId: null }],
        ['POST', `/api/v1/documents/${doc.id}/publish`],
        ['POST', `/api/v1/documents/${doc.id}/unpublish`],
        ['DELETE', `/api/v1/documents/${doc.id}`],
        ['DELETE', `/api/v1/documents/${doc.id}/cascade`],
      ] as const) {
        const res = await t.call(method, path, stranger, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect((await t.call(method, path, null, body)).status, `${method} ${path} without a token`).toBe(401);
      }
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, owner)).body.data.title).toBe('Readable');
    });

    it('needs EDITOR to create, update, move, publish and delete: 403 below', async () => {
      const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Guarded' });
      for (const low of [commenter, viewer]) {
        for (const [method, path, body] of [
          ['POST', '/api/v1/documents', { workspaceId: ws }],
          ['PUT', `/api/v1/documents/${doc.id}`, { title: 'x' }],
          ['PUT', `/api/v1/documents/${doc.id}`, { isArchived: true }],
          ['PUT', `/api/v1/documents/${doc.id}/move`, { parentId: null }],
          ['POST', `/api/v1/documents/${doc.id}/publish`],
          ['POST', `/api/v1/documents/${doc.id}/unpublish`],
          ['DELETE', `/api/v1/documents/${doc.id}`],
          ['DELETE', `/api/v1/documents/${doc.id}/cascade`],
        ] as const) {
          const res = await t.call(method, path, low, body);
          expect(res.status, `${low.email} ${method} ${path}`).toBe(403);
          expect(res.body.error.code).toBe('FORBIDDEN');
        }
      }
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data).toMatchObject({
        title: 'Guarded',
        isArchived: false,
        isPublished: false,
      });

      for (const [i, u] of [owner, admin, editor].entries()) {
        const mine = await createDocument(t, u, { workspaceId: ws, title: `by ${u.email}` });
        expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, u, { title: `edit ${i}` })).status).toBe(200);
        expect((await t.call('PUT', `/api/v1/documents/${mine.id}/move`, u, { parentId: doc.id })).status).toBe(200);
        expect((await t.call('POST', `/api/v1/documents/${mine.id}/publish`, u)).status).toBe(200);
        expect((await t.call('POST', `/api/v1/documents/${mine.id}/unpublish`, u)).status).toBe(200);
        expect((await t.call('DELETE', `/api/v1/documents/${mine.id}`, u)).status).toBe(200);
      }
    });

    it("answers the caller's role and canEdit (EDITOR and up, not archived); 404 to non-members", async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Whose' });
      const permission = (u: SignedInUser | null) => t.call('GET', `/api/v1/documents/${doc.id}/permission`, u);
      const expected = [
        [owner, 'OWNER', true],
        [admin, 'ADMIN', true],
        [editor, 'EDITOR', true],
        [commenter, 'COMMENTER', false],
        [viewer, 'VIEWER', false],
      ] as const;
      for (const [u, role, canEdit] of expected) {
        const res = await permission(u);
        expect(res.status, u.email).toBe(200);
        expect(res.body.data).toEqual({ role, canEdit, workspaceId: ws });
      }
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, editor, { isArchived: true })).status).toBe(200);
      for (const [u, role] of expected) expect((await permission(u)).body.data).toMatchObject({ role, canEdit: false });

      expect((await permission(stranger)).status).toBe(404);
      expect((await permission(null)).status).toBe(401);
      const unknown = await t.call('GET', '/api/v1/documents/00000000-0000-4000-8000-000000000000/permission', owner);
      expect(unknown.status).toBe(404);
      expect((await t.call('GET', '/api/v1/documents/not-a-uuid/permission', owner)).body.error.code).toBe(
        'VALIDATION_ERROR',
      );
    });

    it('loses access as soon as the member is removed', async () => {
      const leaver = await signInNew(t, 'Lee Leaver');
      const member = await addMember(t, ws, owner, leaver, 'EDITOR');
      const doc = await createDocument(t, leaver, { workspaceId: ws, title: 'Mine' });
      expect((await t.call('DELETE', `/api/v1/workspaces/${ws}/members/${member.id}`, owner)).status).toBeLessThan(300);
      await eventually(async () =>
        expect((await t.call('GET', `/api/v1/documents/${doc.id}`, leaver)).status).toBe(404),
      );
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, owner)).status).toBe(200);
    });
  });
});
