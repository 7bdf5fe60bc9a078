import { gunzipSync } from 'node:zlib';
import { sql, z } from '@wiki/db';
import { createDocument, createWorkspace, type SignedInUser, signInNew, workspaceWith } from '@wiki/testing';
import { request } from 'undici';
import { type DocStack, startDocStack } from './helpers.js';

describe('tree: moves, cycles, delete, archive and restore (through the gateway)', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let ws: string;
  let otherWs: string;

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
    otherWs = (await createWorkspace(t, owner)).id;
  });
  afterAll(() => t?.stop());

  const doc = (title: string, parentId: string | null = null, workspaceId = ws) =>
    createDocument(t, owner, { workspaceId, title, parentId });
  const get = (id: string) => t.call('GET', `/api/v1/documents/${id}`, viewer);
  const children = async (id: string) =>
    (await t.call('GET', `/api/v1/documents/${id}/children`, viewer)).body.data.map((d: any) => d.title);
  const move = (id: string, body: unknown, as: SignedInUser = editor) =>
    t.call('PUT', `/api/v1/documents/${id}/move`, as, body);
  const tree = async (workspaceId = ws) =>
    (await t.call('GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`, owner)).body.data;
  const roots = async () =>
    (await t.call('GET', `/api/v1/documents?workspaceId=${ws}`, viewer)).body.data.map((d: any) => d.id);
  const flatten = (nodes: any[], out: string[] = []) => {
    for (const n of nodes) flatten(n.children, (out.push(n.id), out));
    return out;
  };

  it('sends a large tree gzipped through the gateway to a client that takes gzip, and plain to one that does not', async () => {
    const big = (await createWorkspace(t, owner)).id;
    for (let i = 0; i < 300; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          createDocument(t, owner, { workspaceId: big, title: `A page with a longer title ${i + k}` }),
        ),
      );
    const url = `${t.gatewayUrl}/api/v1/documents/tree?workspaceId=${big}`;
    const raw = (encoding: string) =>
      request(url, { headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': encoding } });
    const zipped = await raw('gzip, deflate, br');
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toContain('accept-encoding');
    const unzipped = gunzipSync(Buffer.from(await zipped.body.arrayBuffer()));
    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const plainBytes = Buffer.from(await plain.body.arrayBuffer());
    expect(unzipped.equals(plainBytes)).toBe(true);
    expect(JSON.parse(plainBytes.toString()).data).toHaveLength(300);
    expect((await raw('gzip;q=0')).headers['content-encoding']).toBeUndefined();
    // A small tree is sent as it is.
    expect(
      (
        await request(`${t.gatewayUrl}/api/v1/documents/tree?workspaceId=${otherWs}`, {
          headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': 'gzip' },
        })
      ).headers['content-encoding'],
    ).toBeUndefined();
  });

  describe('move', () => {
    it('moves under a parent (last), to the root with null or no parentId, and returns the document', async () => {
      const p = await doc('P');
      const a = await doc('a', p.id);
      const x = await doc('x');
      const res = await move(x.id, { parentId: p.id });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: x.id, parentId: p.id, title: 'x' });
      expect(await children(p.id)).toEqual(['a', 'x']);
      expect((await get(p.id)).body.data.childCount).toBe(2);

      expect((await move(x.id, { parentId: null })).body.data.parentId).toBeNull();
      expect(await children(p.id)).toEqual(['a']);
      expect((await move(a.id, {})).body.data.parentId).toBeNull();
      expect((await roots()).slice(-2)).toEqual([x.id, a.id]);
      expect((await get(p.id)).body.data).toMatchObject({ hasChildren: false, childCount: 0 });
    });

    it('places at an index among the siblings and renumbers them', async () => {
      const p = await doc('Ordered');
      for (const title of ['a', 'b', 'c']) await doc(title, p.id);
      const m = await doc('m');
      expect((await move(m.id, { parentId: p.id, index: 0 })).status).toBe(200);
      expect(await children(p.id)).toEqual(['m', 'a', 'b', 'c']);
      expect((await move(m.id, { parentId: p.id, index: 2 })).status).toBe(200);
      expect(await children(p.id)).toEqual(['a', 'b', 'm', 'c']);
      expect((await move(m.id, { parentId: p.id, index: 99 })).status).toBe(200);
      expect(await children(p.id)).toEqual(['a', 'b', 'c', 'm']);
      // A document created afterwards still comes last.
      await doc('n', p.id);
      expect(await children(p.id)).toEqual(['a', 'b', 'c', 'm', 'n']);
      expect((await move(m.id, { parentId: p.id, index: -1 })).status).toBe(400);
      expect((await move(m.id, { parentId: p.id, index: 'first' })).status).toBe(400);
    });

    it('refuses a move under itself, under a descendant, into another workspace, or under an archived parent', async () => {
      const a = await doc('A');
      const b = await doc('B', a.id);
      const c = await doc('C', b.id);
      const self = await move(a.id, { parentId: a.id });
      expect(self.status).toBe(400);
      expect(self.body.error.code).toBe('VALIDATION_ERROR');
      expect((await move(a.id, { parentId: b.id })).status).toBe(400);
      const deep = await move(a.id, { parentId: c.id });
      expect(deep.status).toBe(400);
      expect(deep.body.error.details).toEqual([{ field: 'parentId', message: 'is a descendant of the document' }]);
      const foreign = await doc('Foreign', null, otherWs);
      const cross = await move(c.id, { parentId: foreign.id });
      expect(cross.status).toBe(400);
      expect(cross.body.error.details).toEqual([
        { field: 'parentId', message: 'must be a document of the same workspace' },
      ]);
      expect((await move(c.id, { parentId: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
      expect((await move(c.id, { parentId: 'nope' })).status).toBe(400);
      const archived = await doc('Archived');
      await t.call('PUT', `/api/v1/documents/${archived.id}`, editor, { isArchived: true });
      expect((await move(c.id, { parentId: archived.id })).status).toBe(400);
      // Nothing moved.
      expect(
        (await t.call('GET', `/api/v1/documents/${c.id}/ancestors`, viewer)).body.data.map((d: any) => d.title),
      ).toEqual(['A', 'B', 'C']);
      // Moving a child up out of its parent is fine.
      expect((await move(c.id, { parentId: a.id })).status).toBe(200);
    });

    it('refuses to move an archived document with 409 until it is restored', async () => {
      const target = await doc('Target');
      const shelved = await doc('Shelved');
      const under = await doc('under shelved', shelved.id);
      await t.call('PUT', `/api/v1/documents/${shelved.id}`, editor, { isArchived: true });
      const movedBefore = (await t.outbox('document.moved')).length;
      // The archived document itself, and a descendant archived with it, to a parent or to the root.
      for (const [id, body] of [
        [shelved.id, { parentId: target.id }],
        [shelved.id, { parentId: null }],
        [under.id, { parentId: target.id, index: 0 }],
      ] as const) {
        const res = await move(id, body);
        expect(res.status, JSON.stringify(body)).toBe(409);
        expect(res.body.error).toMatchObject({
          code: 'CONFLICT',
          message: 'This document is archived; restore it before moving it',
        });
      }
      expect(await t.outbox('document.moved')).toHaveLength(movedBefore);
      expect((await get(shelved.id)).body.data).toMatchObject({ parentId: null, isArchived: true });
      expect((await get(under.id)).body.data).toMatchObject({ parentId: shelved.id, isArchived: true });
      await t.call('PUT', `/api/v1/documents/${shelved.id}`, editor, { isArchived: false });
      expect((await move(shelved.id, { parentId: target.id })).status).toBe(200);
      expect(await children(target.id)).toEqual(['Shelved']);
    });

    it('lets only one of two racing moves that would together make a cycle succeed', async () => {
      for (let round = 0; round < 8; round++) {
        const a = await doc(`race-a-${round}`);
        const b = await doc(`race-b-${round}`);
        const [ab, ba] = await Promise.all([move(a.id, { parentId: b.id }), move(b.id, { parentId: a.id })]);
        expect([ab.status, ba.status].sort()).toEqual([200, 400]);
      }
      // Three-way race: a→b, b→c, c→a; at most two can succeed.
      for (let round = 0; round < 4; round++) {
        const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => doc(`tri-${n}-${round}`)));
        const results = await Promise.all([
          move(a.id, { parentId: b.id }),
          move(b.id, { parentId: c.id }),
          move(c.id, { parentId: a.id }),
        ]);
        expect(results.filter((r) => r.status === 200).length).toBe(2);
      }
      // Every document is still reachable from a root exactly once: no cycle anywhere.
      const ids = flatten(await tree());
      const count = await t.pool.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT count(*)::int AS n FROM documents WHERE workspace_id = ${ws} AND NOT is_archived`,
      );
      expect(ids.length).toBe(count);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('delete', () => {
    it('deletes one document and makes its children root documents, last, in their order', async () => {
      const p = await doc('Doomed');
      const c1 = await doc('c1', p.id);
      const c2 = await doc('c2', p.id);
      const g = await doc('g', c1.id);
      const res = await t.call('DELETE', `/api/v1/documents/${p.id}`, editor);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect((await get(p.id)).status).toBe(404);
      expect((await get(c1.id)).body.data.parentId).toBeNull();
      expect((await get(c2.id)).body.data.parentId).toBeNull();
      expect((await get(g.id)).body.data.parentId).toBe(c1.id);
      expect((await roots()).slice(-2)).toEqual([c1.id, c2.id]);
      expect((await t.call('DELETE', `/api/v1/documents/${p.id}`, editor)).status).toBe(404);
    });

    it('cascade deletes every descendant permanently', async () => {
      const p = await doc('Cascade');
      const c = await doc('c', p.id);
      const g = await doc('g', c.id);
      const archivedChild = await doc('archived child', p.id);
      await t.call('PUT', `/api/v1/documents/${archivedChild.id}`, editor, { isArchived: true });
      const keep = await doc('keep');
      const res = await t.call('DELETE', `/api/v1/documents/${p.id}/cascade`, editor);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      for (const id of [p.id, c.id, g.id, archivedChild.id]) expect((await get(id)).status).toBe(404);
      const left = await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM documents WHERE id = ANY(${sql.array([p.id, c.id, g.id, archivedChild.id], 'uuid')})`);
      expect(left).toBe(0);
      expect((await get(keep.id)).status).toBe(200);
      const deleted = (await t.outbox('document.deleted')).find((e) => e.data.id === p.id)!;
      expect(deleted.data.cascade).toBe(true);
      expect([...deleted.data.ids].sort()).toEqual([p.id, c.id, g.id, archivedChild.id].sort());
    });
  });

  describe('archive and restore (isArchived)', () => {
    it('hides the whole subtree from lists, trees, children and counts, and restores it', async () => {
      const p = await doc('Shelf');
      const c = await doc('c', p.id);
      const g = await doc('g', c.id);
      const sibling = await doc('sibling', p.id);
      const res = await t.call('PUT', `/api/v1/documents/${c.id}`, editor, { isArchived: true });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: c.id, isArchived: true });

      expect(await children(p.id)).toEqual(['sibling']);
      expect((await get(p.id)).body.data).toMatchObject({ childCount: 1, hasChildren: true });
      const visible = flatten(await tree());
      expect(visible).toContain(sibling.id);
      expect(visible).not.toContain(c.id);
      expect(visible).not.toContain(g.id);
      // Still readable by id, flagged as archived; its descendants too.
      expect((await get(c.id)).body.data.isArchived).toBe(true);
      expect((await get(g.id)).body.data.isArchived).toBe(true);
      expect((await t.call('GET', `/api/v1/documents/${c.id}/children`, viewer)).body.data).toEqual([]);
      expect((await t.call('GET', `/api/v1/documents?workspaceId=${ws}&parentId=${c.id}`, viewer)).body.data).toEqual(
        [],
      );
      // Nothing new goes under an archived document.
      expect((await t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, parentId: g.id })).status).toBe(400);

      const archived = (await t.outbox('document.archived')).find((e) => e.data.id === c.id)!;
      expect([...archived.data.ids].sort()).toEqual([c.id, g.id].sort());

      const back = await t.call('PUT', `/api/v1/documents/${c.id}`, editor, { isArchived: false });
      expect(back.body.data).toMatchObject({ isArchived: false, parentId: p.id, childCount: 1 });
      expect(await children(p.id)).toEqual(['c', 'sibling']);
      expect((await get(g.id)).body.data.isArchived).toBe(false);
      expect(flatten(await tree())).toEqual(expect.arrayContaining([c.id, g.id]));
      const restored = (await t.outbox('document.restored')).find((e) => e.data.id === c.id)!;
      expect([...restored.data.ids].sort()).toEqual([c.id, g.id].sort());
    });

    it('keeps a descendant archived on its own archived when its ancestor is restored', async () => {
      const p = await doc('Box');
      const own = await doc('archived alone', p.id);
      const other = await doc('other', p.id);
      await t.call('PUT', `/api/v1/documents/${own.id}`, editor, { isArchived: true });
      await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: true });
      expect((await get(other.id)).body.data.isArchived).toBe(true);
      await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: false });
      expect((await get(other.id)).body.data.isArchived).toBe(false);
      expect((await get(own.id)).body.data.isArchived).toBe(true);
      expect(await children(p.id)).toEqual(['other']);
    });

    it('restores a document whose parent is still archived as a root document', async () => {
      const p = await doc('Gone');
      const c = await doc('c', p.id);
      await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: true });
      const res = await t.call('PUT', `/api/v1/documents/${c.id}`, editor, { isArchived: false });
      expect(res.body.data).toMatchObject({ isArchived: false, parentId: null });
      expect(await roots()).toContain(c.id);
      expect((await get(p.id)).body.data.isArchived).toBe(true);
    });

    it('lets a delete make archived children root documents that stay archived', async () => {
      const p = await doc('Parent');
      const c = await doc('c', p.id);
      await t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: true });
      expect((await t.call('DELETE', `/api/v1/documents/${p.id}`, editor)).status).toBe(200);
      expect((await get(c.id)).body.data).toMatchObject({ parentId: null, isArchived: true });
      expect(await roots()).not.toContain(c.id);
      // Restoring it works: its archiving came from the deleted parent.
      expect((await t.call('PUT', `/api/v1/documents/${c.id}`, editor, { isArchived: false })).body.data).toMatchObject(
        { isArchived: false, parentId: null },
      );
    });

    it('does not let an archive and a create under the subtree interleave', async () => {
      for (let round = 0; round < 5; round++) {
        const p = await doc(`p${round}`);
        const c = await doc('c', p.id);
        const [created] = await Promise.all([
          t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, parentId: c.id, title: 'late' }),
          t.call('PUT', `/api/v1/documents/${p.id}`, editor, { isArchived: true }),
        ]);
        if (created.status === 201) expect((await get(created.body.data.id)).body.data.isArchived).toBe(true);
        else expect(created.status).toBe(400);
      }
    });

    it('does not let a cascade delete and a create under the subtree interleave', async () => {
      for (let round = 0; round < 5; round++) {
        const p = await doc(`d${round}`);
        const c = await doc('c', p.id);
        const [created, deleted] = await Promise.all([
          t.call('POST', '/api/v1/documents', editor, { workspaceId: ws, parentId: c.id, title: 'late' }),
          t.call('DELETE', `/api/v1/documents/${p.id}/cascade`, editor),
        ]);
        expect(deleted.status).toBe(200);
        // Either refused, or created in time to be deleted with its parent: never left behind.
        if (created.status === 201) expect((await get(created.body.data.id)).status).toBe(404);
        else expect(created.status).toBe(400);
      }
    });
  });

  describe('stored child counts', () => {
    /** Every document of the workspace whose stored count differs from its visible children. */
    const countMismatches = (workspaceId: string) =>
      t.pool.any(sql.type(z.object({ id: z.string(), stored: z.number(), actual: z.number() }))`
        SELECT d.id, coalesce(c.visible_children, 0) AS stored,
          (SELECT count(*)::int FROM documents x WHERE x.parent_id = d.id AND NOT x.is_archived) AS actual
        FROM documents d LEFT JOIN document_child_counts c ON c.document_id = d.id
        WHERE d.workspace_id = ${workspaceId}
          AND coalesce(c.visible_children, 0) <> (SELECT count(*) FROM documents x WHERE x.parent_id = d.id AND NOT x.is_archived)`);
    const orphanCounts = () =>
      t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM document_child_counts c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id)`);

    it('equal the visible children after every kind of tree change', async () => {
      const w = (await createWorkspace(t, owner, { name: 'Counts' })).id;
      // A fixed pseudo-random sequence (same every run) of creations, moves, archives, restores and deletes.
      let seed = 42;
      const random = (n: number) => {
        // mulberry32
        seed = (seed + 0x6d2b79f5) | 0;
        let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
        return ((x ^ (x >>> 14)) >>> 0) % n;
      };
      for (let i = 0; i < 8; i++) await doc(`r${i}`, null, w);
      const ops: string[] = [];
      for (let step = 0; step < 60; step++) {
        const rows = await t.pool.any(sql.type(z.object({ id: z.string(), isArchived: z.boolean() }))`
          SELECT id, is_archived AS "isArchived" FROM documents WHERE workspace_id = ${w} ORDER BY position`);
        const live = rows.filter((r) => !r.isArchived).map((r) => r.id);
        const archived = rows.filter((r) => r.isArchived).map((r) => r.id);
        const pick = live[random(live.length)]!;
        const other = live[random(live.length)]!;
        const op = ['create', 'create', 'move', 'move-index', 'archive', 'restore', 'delete', 'cascade'][random(8)]!;
        let res: { status: number; body: any } | undefined;
        if (op === 'create') await doc(`d${step}`, pick, w);
        else if (op === 'move') res = await move(pick, { parentId: other === pick ? null : other }, owner);
        else if (op === 'move-index')
          res = await move(pick, { parentId: other === pick ? null : other, index: 0 }, owner);
        else if (op === 'archive') res = await t.call('PUT', `/api/v1/documents/${pick}`, owner, { isArchived: true });
        else if (op === 'restore' && archived.length)
          res = await t.call('PUT', `/api/v1/documents/${archived[random(archived.length)]}`, owner, {
            isArchived: false,
          });
        else if (op === 'delete' || op === 'cascade')
          res = await t.call('DELETE', `/api/v1/documents/${pick}${op === 'cascade' ? '/cascade' : ''}`, owner);
        // A move under a descendant is refused (400); nothing else may fail.
        if (res) expect([200, 400], `${op} ${JSON.stringify(res.body)}`).toContain(res.status);
        ops.push(`${op}:${res?.status ?? 201}`);
        expect(await countMismatches(w), `after ${ops.join(' ')}`).toEqual([]);
      }
      expect(ops.filter((o) => o.endsWith(':200')).length).toBeGreaterThan(20);
      expect(await orphanCounts()).toBe(0);
      // The API shows the stored count (here of the document with the most visible children).
      const busiest = await t.pool.one(sql.type(z.object({ id: z.string(), n: z.number() }))`
        SELECT parent_id AS id, count(*)::int AS n FROM documents
        WHERE workspace_id = ${w} AND parent_id IS NOT NULL AND NOT is_archived
        GROUP BY parent_id ORDER BY 2 DESC LIMIT 1`);
      expect(busiest.n).toBeGreaterThan(1);
      expect((await t.call('GET', `/api/v1/documents/${busiest.id}`, owner)).body.data).toMatchObject({
        childCount: busiest.n,
        hasChildren: true,
      });
    });

    it('stay right while creations race archives, moves and deletes of their parents', async () => {
      const w = (await createWorkspace(t, owner, { name: 'Racing counts' })).id;
      const parents: string[] = [];
      for (let i = 0; i < 4; i++) parents.push((await doc(`p${i}`, null, w)).id);
      for (let round = 0; round < 3; round++) {
        const creations = Array.from({ length: 40 }, (_, i) =>
          t.call('POST', '/api/v1/documents', owner, {
            workspaceId: w,
            title: `c${round}.${i}`,
            parentId: parents[i % parents.length],
          }),
        );
        const changes = [
          t.call('PUT', `/api/v1/documents/${parents[0]}`, owner, { isArchived: round % 2 === 0 }),
          move(parents[1]!, { parentId: round % 2 === 0 ? parents[2] : null }, owner),
          t.call('DELETE', `/api/v1/documents/${parents[3]}`, owner),
        ];
        const results = await Promise.all([...creations, ...changes]);
        // Creations under an archived or deleted parent are refused with a 400; no 5xx, no deadlock.
        for (const r of results) expect([200, 201, 400], JSON.stringify(r.body)).toContain(r.status);
        expect(await countMismatches(w)).toEqual([]);
        parents[3] = (await doc(`p3.${round}`, null, w)).id;
      }
      expect(await orphanCounts()).toBe(0);
    });
  });

  describe('a workspace with 10,000 documents', () => {
    it('returns all of them, nested, in order', async () => {
      const big = (await createWorkspace(t, owner, { name: 'Big' })).id;
      // Rows written straight into the database: this test is about reading, not creating.
      await t.pool.query(sql.unsafe`
        INSERT INTO documents (id, workspace_id, parent_id, title, owner_id, created_by, last_edited_by)
        SELECT gen_random_uuid(), ${big}, NULL, 'root ' || i, ${owner.id}, ${owner.id}, ${owner.id} FROM generate_series(1, 100) i`);
      await t.pool.query(sql.unsafe`
        INSERT INTO documents (workspace_id, parent_id, title, owner_id, created_by, last_edited_by)
        SELECT ${big}, r.id, r.title || ' / ' || i, ${owner.id}, ${owner.id}, ${owner.id}
        FROM documents r, generate_series(1, 99) i WHERE r.workspace_id = ${big}`);
      const res = await t.call('GET', `/api/v1/documents/tree?workspaceId=${big}`, owner);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(100);
      expect(flatten(res.body.data)).toHaveLength(10_000);
      expect(res.body.data[0].children).toHaveLength(99);
      expect(res.body.data[0].children[0].title).toBe('root 1 / 1');
    });
  });
});
