import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { mintIdentityToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { createEnvelope, eventsMigrations, parseEventData } from '@wiki/events';
import { type MembershipAccess, membershipMigrations, usersProjectionMigrations } from '@wiki/projections';
import { cleanupConfig, countingStatements, ISO_RE, isolatedConfig, readOutbox, UNUSED_IDP } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { DocumentDetail, ListItem } from '../src/db/documents.js';
import { createPreparedStatements, type PreparedStatements } from '../src/db/prepared-statements.js';

/**
 * The app on its own database with a pool that counts the statements it is asked to run: the tree
 * of a 10,000-document workspace and a document read must each be one query. Membership is
 * answered by a stub here so that only the document queries are counted.
 */
function counting(pool: DatabasePool): { pool: DatabasePool; count: () => number; reset: () => void; add: () => void } {
  const counted = countingStatements(pool);
  let extra = 0;
  return {
    pool: counted.db,
    count: () => counted.count() + extra,
    reset: () => {
      counted.reset();
      extra = 0;
    },
    add: () => {
      extra++;
    },
  };
}

/** The prepared statements count too: every call is one statement. Sizes of the insert batches go to `insertBatches`. */
const insertBatches: number[] = [];
function countingPrepared(prepared: PreparedStatements, counter: { add(): void }): PreparedStatements {
  return {
    findDetail: (id) => (counter.add(), prepared.findDetail(id)),
    updateFields: (...args) => (counter.add(), prepared.updateFields(...args)),
    listChildren: (workspaceId, parentId) => (counter.add(), prepared.listChildren(workspaceId, parentId)),
    workspaceVersion: (workspaceId) => (counter.add(), prepared.workspaceVersion(workspaceId)),
    insertDocuments: (documents) => (
      counter.add(), insertBatches.push(documents.length), prepared.insertDocuments(documents)
    ),
    end: () => prepared.end(),
  };
}

const everyoneIsOwner: MembershipAccess = {
  roleOf: async () => 'OWNER',
  requireRole: async () => 'OWNER',
  startProjection: async () => ({ stop: async () => undefined }),
};

describe('queries per request', () => {
  let config: Config;
  let pool: DatabasePool;
  let app: FastifyInstance;
  let counter: ReturnType<typeof counting>;
  let prepared: PreparedStatements;
  let token: string;
  const userId = randomUUID();
  const workspaceId = randomUUID();

  beforeAll(async () => {
    config = isolatedConfig(UNUSED_IDP);
    const url = config.databaseUrls.document;
    await ensureDatabase(url);
    await migrate(url, [
      eventsMigrations,
      membershipMigrations,
      usersProjectionMigrations,
      { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'pgmigrations' },
    ]);
    pool = await createDatabasePool(url);
    counter = counting(pool);
    prepared = createPreparedStatements(url, console);
    app = await buildApp(config, {
      pool: counter.pool,
      prepared: countingPrepared(prepared, counter),
      membership: everyoneIsOwner,
      logLevel: 'silent',
    });
    await app.ready();
    token = await mintIdentityToken(
      config.internalTokenSecret,
      { kind: 'user', userId, name: 'Counter', email: 'c@example.com' },
      3600,
    );
    await pool.query(sql.unsafe`INSERT INTO projection_users (id, name) VALUES (${userId}, 'Counter')`);
    await pool.query(sql.unsafe`
      INSERT INTO documents (workspace_id, parent_id, title, owner_id, created_by, last_edited_by)
      SELECT ${workspaceId}, NULL, 'root ' || i, ${userId}, ${userId}, ${userId} FROM generate_series(1, 100) i`);
    await pool.query(sql.unsafe`
      INSERT INTO documents (workspace_id, parent_id, title, owner_id, created_by, last_edited_by)
      SELECT ${workspaceId}, r.id, r.title || ' / ' || i, ${userId}, ${userId}, ${userId}
      FROM documents r, generate_series(1, 99) i WHERE r.workspace_id = ${workspaceId}`);
  });
  afterAll(async () => {
    await app?.close();
    await prepared?.end();
    await pool?.end();
    if (config) await cleanupConfig(config);
  });

  it('builds the tree of 10,000 documents from one query after the version read', async () => {
    counter.reset();
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/documents/tree?workspaceId=${workspaceId}`,
      headers: { 'x-wiki-identity': token },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    let nodes = 0;
    const walk = (list: any[]) => {
      for (const n of list) {
        nodes++;
        walk(n.children);
      }
    };
    walk(body.data);
    expect(nodes).toBe(10_000);
    expect(counter.count()).toBe(2); // the workspace's version, then the tree
    counter.reset();
    const again = await app.inject({
      method: 'GET',
      url: `/api/v1/documents/tree?workspaceId=${workspaceId}`,
      headers: { 'x-wiki-identity': token },
    });
    expect(again.body).toBe(res.body);
    expect(counter.count()).toBe(1); // remembered: the version alone
  });

  it('describes its routes in /openapi.json (the gateway merges them into /docs-ui)', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const path of [
      '/api/v1/documents',
      '/api/v1/documents/tree',
      '/api/v1/documents/{id}',
      '/api/v1/documents/{id}/move',
      '/api/v1/public/documents/{documentId}',
      '/api/v1/internal/documents/{documentId}/collab-state',
    ]) {
      expect(paths).toContain(path);
    }
    expect(paths).not.toContain('/internal/documents/{id}');
  });

  it('reads a document, with its counts and users, in one query', async () => {
    const root = await pool.oneFirst(
      sql.unsafe`SELECT id FROM documents WHERE workspace_id = ${workspaceId} AND parent_id IS NULL LIMIT 1`,
    );
    counter.reset();
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/documents/${root}`,
      headers: { 'x-wiki-identity': token },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      childCount: 99,
      hasChildren: true,
      createdByUser: { id: userId, name: 'Counter' },
    });
    expect(counter.count()).toBe(1);
  });

  it('lists children with a version read and one query, then the version read alone; only an empty list looks the parent up', async () => {
    const root = await pool.oneFirst(
      sql.unsafe`SELECT id FROM documents WHERE workspace_id = ${workspaceId} AND parent_id IS NULL LIMIT 1`,
    );
    const leaf = await pool.oneFirst(sql.unsafe`SELECT id FROM documents WHERE parent_id = ${root} LIMIT 1`);
    const list = (parentId: unknown) =>
      app.inject({
        method: 'GET',
        url: `/api/v1/documents?workspaceId=${workspaceId}&parentId=${parentId}`,
        headers: { 'x-wiki-identity': token },
      });
    counter.reset();
    const full = await list(root);
    expect(full.statusCode).toBe(200);
    expect(full.json().data).toHaveLength(99);
    expect(counter.count()).toBe(2);
    counter.reset();
    expect((await list(root)).body).toBe(full.body); // remembered (queries/list-answers.ts)
    expect(counter.count()).toBe(1);
    counter.reset();
    const empty = await list(leaf);
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toEqual([]);
    expect(counter.count()).toBe(3);
    expect((await list(randomUUID())).statusCode).toBe(404);

    // Lists come from prepared statements, whose rows are not parsed: the list shape exactly as it comes.
    const [roots, children] = [
      await prepared.listChildren(workspaceId, null),
      await prepared.listChildren(workspaceId, root),
    ];
    expect(children).toHaveLength(99);
    for (const item of [...roots, ...children]) expect(ListItem.row.strict().parse(item)).toEqual(item);
    expect(children[0].updatedAt).toMatch(ISO_RE);
  });

  it('edits a document in one statement that also writes its event and answers it as the GET reads it', async () => {
    const id = await pool.oneFirst(
      sql.unsafe`SELECT id FROM documents WHERE workspace_id = ${workspaceId} AND parent_id IS NULL LIMIT 1`,
    );
    const put = (payload: object) =>
      app.inject({ method: 'PUT', url: `/api/v1/documents/${id}`, headers: { 'x-wiki-identity': token }, payload });
    expect((await put({ title: 'warm' })).statusCode).toBe(200); // the document's workspace is now remembered
    counter.reset();
    const res = await put({
      title: 'Edited',
      icon: '📘',
      content: [{ type: 'paragraph', content: 'four words of text' }],
    });
    expect(res.statusCode).toBe(200);
    expect(counter.count()).toBe(1);
    const read = await app.inject({
      method: 'GET',
      url: `/api/v1/documents/${id}`,
      headers: { 'x-wiki-identity': token },
    });
    expect(res.json().data).toEqual(read.json().data);
    expect(res.json().data).toMatchObject({ title: 'Edited', icon: '📘', wordCount: 4, childCount: 99 });

    // The event the statement built is the contract's, with the row's state and the answer's time.
    const [event] = (await readOutbox(pool, 'document.updated')).filter((e) => e.data.id === id).slice(-1);
    expect(parseEventData('document.updated', event.data)).toEqual({
      id,
      workspaceId,
      createdBy: res.json().data.createdBy,
      parentId: null,
      title: 'Edited',
      icon: '📘',
      isArchived: false,
      isPublished: false,
      isTemplate: false,
      updatedAt: res.json().data.updatedAt,
      plainText: 'four words of text',
      plainTextTruncated: false,
      changed: ['title', 'content', 'icon'],
      revision: res.json().data.revision,
    });
    expect(event).toMatchObject({ type: 'document.updated', actorId: userId, workspaceId });

    // An archived document changes nothing and writes no event.
    await pool.query(sql.unsafe`UPDATE documents SET is_archived = true, archive_root_id = id WHERE id = ${id}`);
    const events = (await readOutbox(pool, 'document.updated')).length;
    const refused = await put({ title: 'Not while archived' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('CONFLICT');
    expect(await pool.oneFirst(sql.unsafe`SELECT title FROM documents WHERE id = ${id}`)).toBe('Edited');
    expect((await readOutbox(pool, 'document.updated')).length).toBe(events);
    await pool.query(sql.unsafe`UPDATE documents SET is_archived = false, archive_root_id = NULL WHERE id = ${id}`);
    expect(await put({ title: 'x' }).then((r) => r.statusCode)).toBe(200);
    expect(
      (
        await app.inject({
          method: 'PUT',
          url: `/api/v1/documents/${randomUUID()}`,
          headers: { 'x-wiki-identity': token },
          payload: { title: 'y' },
        })
      ).statusCode,
    ).toBe(404);
  });

  describe('creating documents at the same time', () => {
    const ws = randomUUID();
    const post = (body: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/v1/documents', headers: { 'x-wiki-identity': token }, payload: body });
    const createdEvents = (ids: readonly string[]) =>
      pool.any(sql.type(z.object({ id: z.string(), seq: z.number(), envelope: z.any() }))`
        SELECT id, seq, envelope FROM event_outbox
        WHERE type = 'document.created' AND envelope->'data'->>'id' = ANY(${sql.array([...ids], 'text')})
        ORDER BY seq`);

    beforeAll(async () => {
      // The first creation remembers the user (one statement, once per process): not part of what is counted below.
      expect((await post({ workspaceId: ws, title: 'warm-up' })).statusCode).toBe(201);
    });

    it('writes documents created together in fewer statements than documents, each with its document.created event', async () => {
      counter.reset();
      insertBatches.length = 0;
      const titles = Array.from({ length: 20 }, (_, i) => `together ${i}`);
      const responses = await Promise.all(titles.map((title) => post({ workspaceId: ws, title })));
      expect(responses.map((r) => r.statusCode)).toEqual(titles.map(() => 201));
      const docs = responses.map(
        (r) =>
          r.json().data as { id: string; title: string; updatedAt: string; createdAt: string; workspaceId: string },
      );
      expect(docs.map((d) => d.title)).toEqual(titles);
      const ids = docs.map((d) => d.id);
      expect(new Set(ids).size).toBe(titles.length);
      expect(counter.count()).toBeLessThan(titles.length);
      expect(insertBatches.reduce((a, b) => a + b, 0)).toBe(titles.length);
      expect(Math.max(...insertBatches)).toBeGreaterThan(1);

      const rows = await pool.any(sql.type(
        z.object({
          id: z.string(),
          title: z.string(),
          workspaceId: z.string(),
          position: z.string(),
          updatedAt: z.string(),
        }),
      )`
        SELECT id, title, workspace_id AS "workspaceId", position::text AS position,
          to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"
        FROM documents WHERE id = ANY(${sql.array(ids, 'uuid')})`);
      expect(rows).toHaveLength(titles.length);
      const rowOf = new Map(rows.map((r) => [r.id, r]));
      for (const doc of docs)
        expect(rowOf.get(doc.id)).toMatchObject({ title: doc.title, workspaceId: ws, updatedAt: doc.updatedAt });

      const events = await createdEvents(ids);
      expect(events).toHaveLength(titles.length); // one each
      for (const doc of docs) {
        const event = events.find((e) => e.envelope.data.id === doc.id)!.envelope;
        expect(event).toMatchObject({ type: 'document.created', actorId: userId, workspaceId: ws });
        expect(event.data).toMatchObject({
          id: doc.id,
          workspaceId: ws,
          parentId: null,
          title: doc.title,
          isArchived: false,
        });
        expect(event.data.updatedAt).toBe(doc.updatedAt);
      }
      // Siblings and their events are in the same order: positions rise with the outbox sequence.
      const positions = events.map((e) => BigInt(rowOf.get(e.envelope.data.id)!.position));
      expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
    });

    it('inserts, among creations sent together, only those whose parent qualifies, and says why for the others', async () => {
      const parent = (await post({ workspaceId: ws, title: 'live parent' })).json().data;
      const archived = (await post({ workspaceId: ws, title: 'archived parent' })).json().data;
      const archiving = await app.inject({
        method: 'PUT',
        url: `/api/v1/documents/${archived.id}`,
        headers: { 'x-wiki-identity': token },
        payload: { isArchived: true },
      });
      expect(archiving.statusCode).toBe(200);
      expect(archiving.json().data.isArchived).toBe(true);
      const elsewhere = (await post({ workspaceId: randomUUID(), title: 'parent in another workspace' })).json().data;
      const missing = randomUUID();

      insertBatches.length = 0;
      const suffix = randomUUID().slice(0, 8);
      const cases = [
        { title: `under live ${suffix}`, parentId: parent.id },
        { title: `under archived ${suffix}`, parentId: archived.id },
        { title: `under missing ${suffix}`, parentId: missing },
        { title: `under foreign ${suffix}`, parentId: elsewhere.id },
        { title: `at the root ${suffix}`, parentId: null },
      ];
      const responses = await Promise.all(cases.map((c) => post({ workspaceId: ws, ...c })));
      expect(responses.map((r) => r.statusCode)).toEqual([201, 400, 400, 400, 201]);
      expect(Math.max(...insertBatches)).toBeGreaterThan(1); // refused and accepted ones shared a statement
      expect(responses[0].json().data).toMatchObject({ parentId: parent.id, title: cases[0].title });
      expect(responses[4].json().data).toMatchObject({ parentId: null, title: cases[4].title });
      expect(responses[1].json().error.details).toEqual([
        { field: 'parentId', message: 'is archived: restore it before adding documents under it' },
      ]);
      expect(responses[2].json().error.details).toEqual([
        { field: 'parentId', message: 'must be a document of the same workspace' },
      ]);
      expect(responses[3].json().error.details).toEqual([
        { field: 'parentId', message: 'must be a document of the same workspace' },
      ]);

      const titles = await pool.anyFirst(sql.type(z.object({ title: z.string() }))`
        SELECT title FROM documents WHERE title LIKE ${`%${suffix}`} ORDER BY title`);
      expect(titles).toEqual([cases[4].title, cases[0].title]);
      const eventTitles = await pool.anyFirst(sql.type(z.object({ title: z.string() }))`
        SELECT envelope->'data'->>'title' AS title FROM event_outbox
        WHERE type = 'document.created' AND envelope->'data'->>'title' LIKE ${`%${suffix}`} ORDER BY title`);
      expect(eventTitles).toEqual([cases[4].title, cases[0].title]);
      const created = await createdEvents([responses[0].json().data.id]);
      expect(created.map((e) => e.envelope.data)).toEqual([
        expect.objectContaining({ parentId: parent.id, updatedAt: responses[0].json().data.updatedAt }),
      ]);
    });

    it('answers each created document as its GET answers it, field by field, user names from the projection', async () => {
      // The same user, with a name and picture in its identity token that the users projection
      // (where a GET takes them from) does not hold: the creation answers what the GET answers.
      const renamed = await mintIdentityToken(
        config.internalTokenSecret,
        { kind: 'user', userId, name: 'Not Counter', email: 'c@example.com', avatarUrl: 'https://img.test/a.png' },
        3600,
      );
      const as = (identity: string) => ({ 'x-wiki-identity': identity });
      const parent = (await post({ workspaceId: ws, title: 'detail parent' })).json().data;
      const paragraph = {
        type: 'paragraph',
        props: {},
        content: [{ type: 'text', text: 'Some words here', styles: {} }],
      };
      const bodies = [
        {
          workspaceId: ws,
          parentId: parent.id,
          title: 'detailed',
          content: [paragraph],
          icon: '📄',
          coverImageUrl: '/c.png',
        },
        { workspaceId: ws },
      ];
      const created = await Promise.all(
        bodies.map((payload) =>
          app.inject({ method: 'POST', url: '/api/v1/documents', headers: as(renamed), payload }),
        ),
      );
      expect(created.map((r) => r.statusCode)).toEqual([201, 201]);
      for (const res of created) {
        const doc = res.json().data;
        expect(doc.createdByUser).toEqual({ id: userId, name: 'Counter', avatarUrl: null });
        const read = await app.inject({ method: 'GET', url: `/api/v1/documents/${doc.id}`, headers: as(token) });
        expect(read.statusCode).toBe(200);
        expect(read.json().data).toEqual(doc);
      }
      expect(created[0].json().data).toMatchObject({ parentId: parent.id, wordCount: 3, icon: '📄', childCount: 0 });

      // The prepared statements' rows are not parsed: they are the detail shape exactly as they come.
      const read = await prepared.findDetail(created[0].json().data.id);
      expect(DocumentDetail.row.strict().parse(read)).toEqual(read);
      const doc = {
        ...{ id: randomUUID(), workspaceId: ws, parentId: null, title: 'raw', content: '[]', plainText: '' },
        ...{ excerpt: '', wordCount: 0, icon: null, coverImageUrl: null, userId },
      };
      const envelope = createEnvelope({ type: 'document.created', actorId: userId, workspaceId: ws, data: {} });
      const inserted = (await prepared.insertDocuments([{ doc, envelope }])).get(doc.id);
      expect(DocumentDetail.row.strict().parse(inserted)).toEqual(inserted);
      expect(await prepared.findDetail(doc.id)).toEqual(inserted);
    });
  });
});
