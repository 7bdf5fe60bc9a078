import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IDENTITY_HEADER, mintIdentityToken, requireUser } from '@wiki/auth';
import {
  type Config,
  ConfigError,
  databaseUrl,
  type Env,
  readEnv,
  SERVICE_NAMES,
  type ServiceName,
  wholeNumber,
} from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { startConsumer } from '@wiki/events';
import { AppError, envelope, errorResponses, idParams, listOf, notBlank, object, success, uuid } from '@wiki/http';
import { cleanupConfig, eventually, isolatedConfig, publishEvent, UNUSED_IDP } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_SERVICES } from '../../../test/http-services.js';
import { createServiceApp, defineService, type RunningService, startService } from '../src/index.js';

/**
 * docs/ARCHITECTURE-NOTES.md, "How to add a service", followed once: a throwaway `bookmark`
 * service written step by step as the notes say, started and stopped through the kit exactly as
 * `runServiceMain` starts a real one (startService; main.ts adds only the listener and signals).
 * Each part below names the step it follows. Then the tree is held to the steps that leave
 * files behind: every folder under services/ took them.
 */

// Step 1. The name. A test cannot add it to SERVICE_NAMES; `withName` gives the configuration the
// entries loadConfig derives for a name there (<NAME>_PORT, <NAME>_DATABASE_URL).
const NAME = 'bookmark' as ServiceName;

function withName(config: Config): Config {
  return {
    ...config,
    ports: { ...config.ports, [NAME]: 0 },
    urls: { ...config.urls, [NAME]: 'http://127.0.0.1:9' },
    databaseUrls: { ...config.databaseUrls, [NAME]: databaseUrl(config.pgUrl, `${config.dbPrefix}_${NAME}`) },
  };
}

// Step 3. Settings: the service's own, next to its code, read with readEnv (a bad value names its variable).
interface BookmarkSettings {
  perUser: number;
}
function loadBookmarkSettings(env: Env): BookmarkSettings {
  const read = readEnv(env, { BOOKMARKS_PER_USER: wholeNumber(100, { min: 1, max: 10_000 }) });
  return { perUser: read.BOOKMARKS_PER_USER };
}

// Step 4. The database: its own migrations/ folder, listed in the definition.
const bookmarkMigrations = {
  dir: fileURLToPath(new URL('./add-a-service/migrations', import.meta.url)),
  table: 'pgmigrations',
};

// Step 7. Routes: TypeBox schemas (the schema is the type), error responses declared, AppError codes.
const bookmark = object({ documentId: uuid, note: notBlank(200) }, ['documentId', 'note']);
const bookmarkBody = object({ note: notBlank(200) }, ['note']);

const BookmarkRow = z.object({ documentId: z.string(), note: z.string() });

// Step 6. The app: createServiceApp (identity, health with the kit's checks, OpenAPI, peers), then routes.
async function buildApp(config: Config, pool: DatabasePool, checks: Record<string, never>): Promise<FastifyInstance> {
  const settings = loadBookmarkSettings(config.env);
  const { app } = await createServiceApp(
    config,
    { pool, checks },
    { service: NAME, openapi: { title: 'Bookmark service' } },
  );
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/api/v1/bookmarks',
    { schema: { tags: ['Bookmarks'], response: { 200: listOf(bookmark), ...errorResponses(401) } } },
    async (request) => {
      const { userId } = requireUser(request);
      const rows = await pool.any(sql.type(BookmarkRow)`
        SELECT document_id AS "documentId", note FROM bookmarks WHERE user_id = ${userId} ORDER BY created_at`);
      return success(rows);
    },
  );
  api.put(
    '/api/v1/bookmarks/:documentId',
    {
      schema: {
        tags: ['Bookmarks'],
        params: idParams('documentId'),
        body: bookmarkBody,
        response: { 200: envelope(bookmark), ...errorResponses(400, 401, 409) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { documentId } = request.params;
      // Step 8. A command: one transaction (a use case others care about would publishInTx here).
      await pool.transaction(async (tx) => {
        const held = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
          SELECT count(*)::int AS n FROM bookmarks WHERE user_id = ${userId} AND document_id <> ${documentId}`);
        if (held >= settings.perUser) throw new AppError('CONFLICT', `At most ${settings.perUser} bookmarks`);
        await tx.query(sql.unsafe`
          INSERT INTO bookmarks (user_id, document_id, note) VALUES (${userId}, ${documentId}, ${request.body.note})
          ON CONFLICT (user_id, document_id) DO UPDATE SET note = EXCLUDED.note`);
      });
      return success({ documentId, note: request.body.note });
    },
  );
  return app;
}

// Step 5. The definition (src/service.ts); src/main.ts would be `await runServiceMain(bookmarkService)`.
const bookmarkService = defineService({
  name: NAME,
  settings: (config) => loadBookmarkSettings(config.env),
  migrations: [bookmarkMigrations],
  buildApp: ({ config, pool, checks }) => buildApp(config, pool, checks as Record<string, never>),
  consumers: [
    // Step 9. A consumer: a deleted document takes its bookmarks with it.
    ({ bus, pool, logger }) =>
      startConsumer({
        bus,
        pool,
        logger,
        name: `${NAME}-documents`,
        types: ['document.deleted'],
        handle: async (event, tx) => {
          await tx.query(
            sql.unsafe`DELETE FROM bookmarks WHERE document_id = ANY(${sql.array(event.data.ids, 'uuid')})`,
          );
        },
      }),
  ],
});

describe('a new service, following "How to add a service"', () => {
  let config: Config;
  let running: RunningService | undefined;
  let base: string;
  const userId = crypto.randomUUID();
  const documentId = crypto.randomUUID();

  beforeAll(async () => {
    config = withName(isolatedConfig(UNUSED_IDP, { BOOKMARKS_PER_USER: '2' }));
    running = await startService(bookmarkService, config);
    base = await running.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await running?.stop();
    if (config) await cleanupConfig(config);
  });

  const call = async (method: string, path: string, body?: unknown, as: string | null = userId) => {
    const headers: Record<string, string> = {};
    if (as)
      headers[IDENTITY_HEADER] = await mintIdentityToken(config.internalTokenSecret, { kind: 'user', userId: as });
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('step 3: a bad setting stops the start, naming its variable', () => {
    const bad = { ...config, env: { ...config.env, BOOKMARKS_PER_USER: 'lots' } };
    expect(() => bookmarkService.settings?.(bad)).toThrow(ConfigError);
    expect(() => bookmarkService.settings?.(bad)).toThrow(/BOOKMARKS_PER_USER/);
  });

  it('steps 4 and 5: the kit created and migrated its own database and made it ready', async () => {
    const pool = await createDatabasePool(config.databaseUrls[NAME]);
    try {
      const sets = await pool.anyFirst(sql.type(z.object({ name: z.string() }))`
        SELECT name FROM pgmigrations ORDER BY id`);
      expect(sets).toEqual(['0001_bookmarks']);
      expect(
        await pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM pgmigrations_events`),
      ).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
    expect((await call('GET', '/health/live', undefined, null)).status).toBe(200);
    const ready = await call('GET', '/health/ready', undefined, null);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'UP', checks: { database: 'UP', nats: 'UP' } });
  });

  it('steps 6 and 7: routes answer in the envelope, check input and the caller, and describe their errors', async () => {
    expect((await call('GET', '/api/v1/bookmarks', undefined, null)).status).toBe(401);
    const invalid = await call('PUT', `/api/v1/bookmarks/${documentId}`, { note: '  ' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect((await call('GET', '/api/v1/bookmarks')).body).toEqual({ success: true, data: [] });

    expect((await call('PUT', `/api/v1/bookmarks/${documentId}`, { note: 'read later' })).status).toBe(200);
    expect((await call('PUT', `/api/v1/bookmarks/${crypto.randomUUID()}`, { note: 'second' })).status).toBe(200);
    const third = await call('PUT', `/api/v1/bookmarks/${crypto.randomUUID()}`, { note: 'over the setting' });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('CONFLICT');

    const doc = await call('GET', '/openapi.json', undefined, null);
    const put = doc.body.paths['/api/v1/bookmarks/{documentId}'].put;
    // 503 comes from the kit: every route of a service with a database can meet an outage.
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '409', '503']);
  });

  it('step 9: its consumer applies events from the stream', async () => {
    await publishEvent(config, { type: 'document.deleted', data: { ids: [documentId] } });
    await eventually(async () => {
      const listed = (await call('GET', '/api/v1/bookmarks')).body.data as { documentId: string }[];
      expect(listed.map((b) => b.documentId)).not.toContain(documentId);
      expect(listed).toHaveLength(1);
    });
  });

  it('step 5: the kit stops it cleanly: HTTP closed, no connection left to its database', async () => {
    await running?.stop();
    running = undefined;
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();
    const admin = await createDatabasePool(`${config.pgUrl}/postgres`);
    try {
      const database = `${config.dbPrefix}_${NAME}`;
      const open = await admin.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${database}`);
      expect(open).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

/** The steps that leave files behind, held against every service folder of the tree. */
describe('every service in services/ took the steps', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const folders = readdirSync(join(root, 'services')).filter((name) =>
    existsSync(join(root, 'services', name, 'package.json')),
  );

  it('step 1: its name is a service name', () => {
    expect([...folders].sort()).toEqual([...SERVICE_NAMES].sort());
  });

  it('step 2: a workspace package, built by the root project', () => {
    const workspaces = JSON.parse(read('package.json')).workspaces as string[];
    const references = (JSON.parse(read('tsconfig.json')).references as { path: string }[]).map((r) => r.path);
    for (const name of folders) {
      expect(workspaces).toContain(`services/${name}`);
      expect(references).toContain(`services/${name}`);
      expect(JSON.parse(read(`services/${name}/package.json`)).dependencies).toHaveProperty('@wiki/service');
    }
  });

  it('step 5: a definition, a main.ts that is runServiceMain and a part.ts that is servicePart of the same', () => {
    for (const name of folders) {
      expect(read(`services/${name}/src/service.ts`)).toContain('defineService(');
      const definition = /await runServiceMain\((\w+)\);/.exec(read(`services/${name}/src/main.ts`))?.[1];
      expect(definition).toBeDefined();
      expect(read(`services/${name}/src/part.ts`)).toContain(`export const part = servicePart(${definition});`);
    }
  });

  it('step 12: the gateway routes to it (collab: the /collab upgrade)', () => {
    const routing = read('gateway/src/routing.ts');
    for (const name of folders.filter((n) => n !== 'collab')) {
      expect(routing).toContain(`service: '${name}'`);
      expect(HTTP_SERVICES).toContain(name);
    }
    expect(read('gateway/src/collab.ts')).toContain("'/collab'");
  });

  it('step 13: a Compose block and a Kubernetes base', () => {
    const compose = read('docker-compose.yml');
    const kustomization = read('k8s/base/kustomization.yaml');
    for (const name of folders) {
      expect(compose).toMatch(new RegExp(`^  ${name}:`, 'm'));
      expect(existsSync(join(root, 'k8s/base', name, 'deployment.yaml'))).toBe(true);
      expect(kustomization).toMatch(new RegExp(`^  - ${name}$`, 'm'));
    }
  });
});
