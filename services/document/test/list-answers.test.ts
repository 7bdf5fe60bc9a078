import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { mintIdentityToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { listOf, success } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ancestorsOf } from '../src/db/documents.js';
import { createPreparedStatements, type PreparedStatements } from '../src/db/prepared-statements.js';
import { presentBreadcrumb, presentListItem } from '../src/presenters/documents.js';
import { rememberedLists } from '../src/queries/list-answers.js';
import { sharedVersionReads } from '../src/queries/version-reads.js';
import { breadcrumbResponse, listItemResponse } from '../src/routes/schemas.js';
import { documentService } from '../src/service.js';

/**
 * Root lists, children and breadcrumbs are remembered per workspace version, on every replica: two
 * rememberedLists (or two apps) over one database stand for two replicas. Writes go straight to
 * the table, as any path would, or through the API. Real Postgres.
 */
let config: Config;
let pool: DatabasePool;
const prepared: PreparedStatements[] = [];
const userId = randomUUID();

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  await prepareDatabase(documentService, config);
  pool = await createDatabasePool(config.databaseUrls.document);
});

afterAll(async () => {
  await Promise.all(prepared.map((p) => p.end()));
  await pool?.end();
  if (config) await cleanupConfig(config);
});

/** Prepared statements of a replica, counting the list queries it runs. */
function replicaStatements() {
  const own = createPreparedStatements(config.databaseUrls.document, console, 2);
  prepared.push(own);
  const counts = { versions: 0, lists: 0 };
  const statements: Pick<PreparedStatements, 'workspaceVersion' | 'listChildren'> = {
    workspaceVersion: (workspaceId) => (counts.versions++, own.workspaceVersion(workspaceId)),
    listChildren: (workspaceId, parentId) => (counts.lists++, own.listChildren(workspaceId, parentId)),
  };
  return { statements, counts, own };
}

/** A replica's lists, as the app builds them (queries/version-reads.ts shares its version reads). */
const listsOf = (replica: ReturnType<typeof replicaStatements>, maxBytes?: number) =>
  rememberedLists(replica.statements, sharedVersionReads(replica.statements.workspaceVersion), pool, maxBytes);

async function insert(workspaceId: string, parentId: string | null, ...names: string[]): Promise<string[]> {
  const ids = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO documents (workspace_id, parent_id, title, icon, owner_id, created_by, last_edited_by)
    SELECT ${workspaceId}, ${parentId}, t, CASE WHEN t LIKE '%leaf%' THEN '🍃' END, ${userId}, ${userId}, ${userId}
    FROM unnest(${sql.array(names, 'text')}) WITH ORDINALITY AS n(t, i) ORDER BY i RETURNING id`);
  return [...ids];
}

const parse = (body: Buffer) =>
  JSON.parse(body.toString()).data as Array<{ id: string; title: string; childCount?: number }>;
const titles = (answer: { body: Buffer }) => parse(answer.body).map((d) => d.title);

describe('remembered list answers', () => {
  it('reuses a list with one version read until a write to the workspace, on any replica', async () => {
    const [ws, other] = [randomUUID(), randomUUID()];
    const a = replicaStatements();
    const b = replicaStatements();
    const replicaA = listsOf(a);
    const replicaB = listsOf(b);
    expect(await replicaA.children(ws, null)).toMatchObject({ empty: true });
    const [first, second] = await insert(ws, null, 'First', 'Second');

    const built = await replicaA.children(ws, null);
    expect(titles(built)).toEqual(['First', 'Second']);
    a.counts.versions = a.counts.lists = 0;
    expect((await replicaA.children(ws, null)).body).toBe(built.body); // the same bytes, not rebuilt
    expect(a.counts).toEqual({ versions: 1, lists: 0 });
    expect(titles(await replicaB.children(ws, null))).toEqual(['First', 'Second']);

    // Another workspace's write changes nothing here.
    await insert(other, null, 'Elsewhere');
    expect((await replicaA.children(ws, null)).body).toBe(built.body);

    // Every kind of write is seen at once by both replicas, child counts included.
    const [child] = await insert(ws, first as string, 'Child');
    for (const replica of [replicaA, replicaB]) {
      expect(parse((await replica.children(ws, null)).body)[0]).toMatchObject({ title: 'First', childCount: 1 });
      expect(titles(await replica.children(ws, first as string))).toEqual(['Child']);
      expect(titles(await replica.ancestors(ws, child as string))).toEqual(['First', 'Child']);
    }
    await pool.query(sql.unsafe`UPDATE documents SET title = 'Renamed' WHERE id = ${first}`);
    expect(titles(await replicaB.ancestors(ws, child as string))).toEqual(['Renamed', 'Child']);
    expect(titles(await replicaA.children(ws, null))).toEqual(['Renamed', 'Second']);
    await pool.query(sql.unsafe`UPDATE documents SET parent_id = ${second} WHERE id = ${child}`);
    expect(titles(await replicaA.ancestors(ws, child as string))).toEqual(['Second', 'Child']);
    expect(await replicaB.children(ws, first as string)).toMatchObject({ empty: true });
    expect(parse((await replicaB.children(ws, null)).body).map((d) => d.childCount)).toEqual([0, 1]);
    await pool.query(sql.unsafe`UPDATE documents SET is_archived = true, archive_root_id = id WHERE id = ${first}`);
    expect(titles(await replicaB.children(ws, null))).toEqual(['Second']);
    expect(titles(await replicaA.children(ws, null))).toEqual(['Second']);
    await pool.query(sql.unsafe`DELETE FROM documents WHERE workspace_id = ${ws}`);
    expect(await replicaA.children(ws, null)).toMatchObject({ empty: true });
    expect(await replicaB.children(ws, second as string)).toMatchObject({ empty: true });
  });

  it('builds a list once for the requests that want it at the same time', async () => {
    const ws = randomUUID();
    await insert(ws, null, ...Array.from({ length: 20 }, (_, i) => `Page ${i}`));
    const a = replicaStatements();
    const lists = listsOf(a);
    const answers = await Promise.all(Array.from({ length: 30 }, () => lists.children(ws, null)));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(a.counts.lists).toBe(1);
    expect(a.counts.versions).toBeLessThanOrEqual(2); // one read, and the one all the others waited for
  });

  it('keeps no more bytes than it is given, and a large answer gzipped too', async () => {
    const ws = randomUUID();
    await insert(ws, null, ...Array.from({ length: 300 }, (_, i) => `A page of the gzip test ${i}`));
    const tiny = replicaStatements();
    const unkept = listsOf(tiny, 10);
    const first = await unkept.children(ws, null);
    const again = await unkept.children(ws, null);
    expect(again.body).not.toBe(first.body);
    expect(again.body.equals(first.body)).toBe(true);
    expect(tiny.counts.lists).toBe(2);

    const lists = listsOf(replicaStatements());
    const plain = await lists.children(ws, null);
    expect(plain.gzipped).toBe(false);
    expect(plain.body.length).toBeGreaterThan(32 * 1024);
    const zipped = await lists.children(ws, null, true);
    expect(zipped.gzipped).toBe(true);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect((await lists.children(ws, null, true)).body).toBe(zipped.body); // not compressed again
  });

  it('writes the bytes the response schemas wrote', async () => {
    const ws = randomUUID();
    const names = [
      'Plain',
      '"Quoted" \\ back\\slash / slash',
      'Tab\tnew\nline \u0001 control \u2028 separator',
      'Ünïcödé, 中文, emoji 🍃 leaf',
      '</script><b>&amp;</b>',
    ];
    const [parent] = await insert(ws, null, ...names);
    const [leaf] = await insert(ws, parent as string, 'A leaf');
    const lists = listsOf(replicaStatements());
    const own = replicaStatements().own;

    // The routes as they were: objects through Fastify's serializer (fast-json-stringify).
    const schemaApp = Fastify();
    schemaApp.get('/list', { schema: { response: { 200: listOf(listItemResponse) } } }, async () =>
      success((await own.listChildren(ws, null)).map(presentListItem)),
    );
    schemaApp.get('/ancestors', { schema: { response: { 200: listOf(breadcrumbResponse) } } }, async () =>
      success((await ancestorsOf(pool, leaf as string)).map(presentBreadcrumb)),
    );
    try {
      const list = await schemaApp.inject({ method: 'GET', url: '/list' });
      expect((await lists.children(ws, null)).body.toString()).toBe(list.body);
      const crumbs = await schemaApp.inject({ method: 'GET', url: '/ancestors' });
      expect((await lists.ancestors(ws, leaf as string)).body.toString()).toBe(crumbs.body);
      expect(parse(Buffer.from(list.body)).map((d) => d.title)).toEqual(names);
    } finally {
      await schemaApp.close();
    }
  });
});

describe('lists through the API, two replicas', () => {
  const everyoneIsOwner: MembershipAccess = {
    roleOf: async () => 'OWNER',
    requireRole: async () => 'OWNER',
    startProjection: async () => ({ stop: async () => undefined }),
  };
  let replicas: FastifyInstance[] = [];
  let token: string;

  beforeAll(async () => {
    replicas = await Promise.all(
      [1, 2].map(() => buildApp(config, { pool, membership: everyoneIsOwner, logLevel: 'silent' })),
    );
    token = await mintIdentityToken(
      config.internalTokenSecret,
      { kind: 'user', userId, name: 'Writer', email: 'w@example.com' },
      3600,
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((app) => app.close()));
  });

  const call = async (replica: number, method: 'GET' | 'POST' | 'PUT', url: string, body?: object) => {
    const res = await (replicas[replica] as FastifyInstance).inject({
      method,
      url,
      headers: { 'x-wiki-identity': token },
      ...(body ? { payload: body } : {}),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json().data;
  };

  it('reads its own writes at once, whichever replica served the write', async () => {
    const ws = randomUUID();
    const roots = () => `/api/v1/documents?workspaceId=${ws}`;
    const parent = await call(0, 'POST', '/api/v1/documents', { workspaceId: ws, title: 'Parent' });
    expect((await call(1, 'GET', roots())).map((d: any) => d.title)).toEqual(['Parent']);
    const child = await call(1, 'POST', '/api/v1/documents', { workspaceId: ws, title: 'Child', parentId: parent.id });
    expect(await call(0, 'GET', roots())).toMatchObject([{ id: parent.id, childCount: 1, hasChildren: true }]);
    expect((await call(0, 'GET', `/api/v1/documents/${parent.id}/children`)).map((d: any) => d.id)).toEqual([child.id]);

    await call(0, 'PUT', `/api/v1/documents/${child.id}`, { title: 'Renamed child' });
    expect((await call(1, 'GET', `/api/v1/documents/${parent.id}/children`)).map((d: any) => d.title)).toEqual([
      'Renamed child',
    ]);
    await call(1, 'PUT', `/api/v1/documents/${parent.id}`, { title: 'Renamed parent' });
    expect((await call(0, 'GET', `/api/v1/documents/${child.id}/ancestors`)).map((d: any) => d.title)).toEqual([
      'Renamed parent',
      'Renamed child',
    ]);

    await call(0, 'PUT', `/api/v1/documents/${child.id}/move`, { parentId: null });
    expect((await call(1, 'GET', roots())).map((d: any) => [d.title, d.childCount])).toEqual([
      ['Renamed parent', 0],
      ['Renamed child', 0],
    ]);
    expect(await call(1, 'GET', `/api/v1/documents?workspaceId=${ws}&parentId=${parent.id}`)).toEqual([]);

    await call(1, 'PUT', `/api/v1/documents/${parent.id}`, { isArchived: true });
    expect((await call(0, 'GET', roots())).map((d: any) => d.title)).toEqual(['Renamed child']);
  });
});
