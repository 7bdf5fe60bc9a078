import { randomUUID } from 'node:crypto';
import { membershipMigrations, type MembershipAccess, mintIdentityToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, ensureDatabase, migrate, sql } from '@wiki/db';
import { eventsMigrations } from '@wiki/events';
import { cleanupConfig, isolatedConfig } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { createPreparedStatements, type PreparedStatements } from '../src/db/prepared-statements.js';

/**
 * The app on its own database with a pool that counts the statements it is asked to run: the tree
 * of a 10,000-document workspace and a document read must each be one query. Membership is
 * answered by a stub here so that only the document queries are counted.
 */
const QUERY_METHODS = ['any', 'anyFirst', 'exists', 'many', 'manyFirst', 'maybeOne', 'maybeOneFirst', 'one', 'oneFirst', 'query'];

function counting(pool: DatabasePool): { pool: DatabasePool; count: () => number; reset: () => void; add: () => void } {
  let n = 0;
  const proxy = new Proxy(pool, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop === 'string' && QUERY_METHODS.includes(prop) && typeof value === 'function') {
        return (...args: unknown[]) => (n++, value.apply(target, args));
      }
      if (prop === 'transaction') return (...args: unknown[]) => (n++, (value as Function).apply(target, args));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { pool: proxy, count: () => n, reset: () => (n = 0), add: () => void n++ };
}

/** The prepared statements count too: every call is one statement. */
function countingPrepared(prepared: PreparedStatements, counter: { add(): void }): PreparedStatements {
  return {
    findDetail: (id) => (counter.add(), prepared.findDetail(id)),
    insertDocuments: (documents) => (counter.add(), prepared.insertDocuments(documents)),
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
    config = isolatedConfig({ issuer: 'http://127.0.0.1:9/realms/unused', jwksUrl: 'http://127.0.0.1:9/certs', audience: 'unused' });
    const url = config.databaseUrls.document;
    await ensureDatabase(url);
    await migrate(url, [eventsMigrations, membershipMigrations, { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'pgmigrations' }]);
    pool = await createDatabasePool(url);
    counter = counting(pool);
    prepared = createPreparedStatements(url, console);
    app = await buildApp(config, { pool: counter.pool, prepared: countingPrepared(prepared, counter), membership: everyoneIsOwner, logLevel: 'silent' });
    await app.ready();
    token = await mintIdentityToken(config.internalTokenSecret, { kind: 'user', userId, name: 'Counter', email: 'c@example.com' }, 3600);
    await pool.query(sql.unsafe`INSERT INTO users (id, name) VALUES (${userId}, 'Counter')`);
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

  it('builds the tree of 10,000 documents from one query', async () => {
    counter.reset();
    const res = await app.inject({ method: 'GET', url: `/api/v1/documents/tree?workspaceId=${workspaceId}`, headers: { 'x-wiki-identity': token } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    let nodes = 0;
    const walk = (list: any[]) => list.forEach((n) => (nodes++, walk(n.children)));
    walk(body.data);
    expect(nodes).toBe(10_000);
    expect(counter.count()).toBe(1);
  });

  it('describes its routes in /openapi.json (the gateway merges them into /docs-ui)', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const path of ['/api/v1/documents', '/api/v1/documents/tree', '/api/v1/documents/{id}', '/api/v1/documents/{id}/move', '/api/v1/public/documents/{documentId}', '/api/v1/internal/documents/{documentId}/collab-state']) {
      expect(paths).toContain(path);
    }
    expect(paths).not.toContain('/internal/documents/{id}');
  });

  it('reads a document, with its counts and users, in one query', async () => {
    const root = await pool.oneFirst(sql.unsafe`SELECT id FROM documents WHERE workspace_id = ${workspaceId} AND parent_id IS NULL LIMIT 1`);
    counter.reset();
    const res = await app.inject({ method: 'GET', url: `/api/v1/documents/${root}`, headers: { 'x-wiki-identity': token } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ childCount: 99, hasChildren: true, createdByUser: { id: userId, name: 'Counter' } });
    expect(counter.count()).toBe(1);
  });
});
