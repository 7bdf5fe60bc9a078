import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, sql, z } from '@wiki/db';
import type { EventBus, EventData, EventType } from '@wiki/events';
import {
  cleanupConfig,
  connectTestBus,
  type EventRecorder,
  eventually,
  isolatedConfig,
  recordEvents,
  testEvent,
  UNUSED_IDP,
} from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { startService } from '../src/service.js';

/**
 * The whole service as main.ts starts it (database, NATS stream, outbox relay, document-count
 * consumer): events leave through the relay and document.* events come in through the bus.
 */
let config: Config;
let service: { app: FastifyInstance; stop(): Promise<void> };
let bus: EventBus;
let recorder: EventRecorder;
let ownerIdentity: string;
let ownerId: string;

async function call(method: string, url: string, body?: unknown, identity = ownerIdentity) {
  const res = await service.app.inject({
    method: method as 'GET',
    url,
    headers: { 'x-wiki-identity': identity },
    ...(body ? { payload: body as object } : {}),
  });
  return { status: res.statusCode, body: res.body ? res.json() : null };
}

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  service = await startService(config, { logLevel: 'silent' });
  bus = await connectTestBus(config);
  recorder = await recordEvents(config);
  const serviceToken = await mintServiceToken(config.internalTokenSecret, 'gateway');
  const resolved = await call(
    'POST',
    '/internal/users/resolve',
    { idpUid: 'kc|olga', email: 'olga@example.com', name: 'Olga' },
    serviceToken,
  );
  ownerId = resolved.body.data.id;
  ownerIdentity = await mintIdentityToken(
    config.internalTokenSecret,
    { kind: 'user', userId: ownerId, email: 'olga@example.com' },
    3600,
  );
});

afterAll(async () => {
  await recorder?.close();
  await bus?.close();
  await service?.stop();
  if (config) await cleanupConfig(config);
});

function publishDocumentEvent<T extends EventType>(type: T, workspaceId: string, data: Partial<EventData<T>>) {
  const envelope = testEvent(type, { actorId: ownerId, workspaceId, data: { workspaceId, ...data } });
  return bus.publish(envelope).then(() => envelope);
}

const countOf = async (workspaceId: string) =>
  (await call('GET', `/api/v1/workspaces/${workspaceId}`)).body.data.documentCount;

describe('events out', () => {
  it('publishes user.upserted, workspace.created and member.added through the outbox', async () => {
    const created = await call('POST', '/api/v1/workspaces', { name: 'Evented' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    await eventually(() => {
      expect(recorder.ofType('workspace.created').find((e) => e.workspaceId === id)).toMatchObject({
        subject: `${config.eventsPrefix}.workspace.created`,
        data: { id, name: 'Evented', icon: null, isArchived: false, ownerId },
      });
      expect(recorder.ofType('member.added').find((e) => e.workspaceId === id)).toMatchObject({
        data: { workspaceId: id, userId: ownerId, role: 'OWNER' },
      });
    });
    // The default workspace and the user came out earlier (before the recorder listened): they are in the stream.
    const info = await bus.jsm.streams.info(config.eventsStream);
    expect(info.state.messages).toBeGreaterThanOrEqual(5);
    expect(recorder.contractViolations()).toEqual([]);
  });
});

describe('documentCount projection', () => {
  it('follows document.created / archived / restored / deleted exactly, redeliveries included', async () => {
    const ws = (await call('POST', '/api/v1/workspaces', { name: 'Docs' })).body.data;
    expect(ws.documentCount).toBe(0);
    const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];

    const first = await publishDocumentEvent('document.created', ws.id, { id: a, title: 'A' });
    await publishDocumentEvent('document.created', ws.id, { id: b, title: 'B', parentId: a });
    await publishDocumentEvent('document.created', ws.id, { id: c, title: 'C', parentId: b });
    await eventually(async () => expect(await countOf(ws.id)).toBe(3));

    // The same event again under a new message id (a republish): counted once.
    await bus.publish({ ...first, id: crypto.randomUUID() });
    await publishDocumentEvent('document.archived', ws.id, { id: b, ids: [b, c] });
    await eventually(async () => expect(await countOf(ws.id)).toBe(1));
    await publishDocumentEvent('document.archived', ws.id, { id: b, ids: [b, c] });
    await publishDocumentEvent('document.restored', ws.id, { id: c });
    await eventually(async () => expect(await countOf(ws.id)).toBe(2));
    await publishDocumentEvent('document.restored', ws.id, { id: c });
    await publishDocumentEvent('document.deleted', ws.id, { id: a, ids: [a, b, c] });
    await eventually(async () => expect(await countOf(ws.id)).toBe(0));
    await publishDocumentEvent('document.created', ws.id, { id: crypto.randomUUID(), title: 'D' });
    await eventually(async () => expect(await countOf(ws.id)).toBe(1));
  });

  it('ignores documents of deleted workspaces instead of failing', async () => {
    const ws = (await call('POST', '/api/v1/workspaces', { name: 'Short-lived' })).body.data;
    expect((await call('DELETE', `/api/v1/workspaces/${ws.id}`)).status).toBe(200);
    const orphan = await publishDocumentEvent('document.created', ws.id, { id: crypto.randomUUID() });
    // Recorded as consumed only when the handler's transaction committed (a failure would retry).
    const pool = await createDatabasePool(config.databaseUrls.workspace);
    try {
      await eventually(async () => {
        const consumed = await pool.anyFirst(sql.type(z.object({ consumer: z.string() }))`
          SELECT consumer FROM event_consumed WHERE event_id = ${orphan.id}`);
        expect(consumed).toEqual(['workspace-document-count']);
      });
      const rows = await pool.anyFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM counted_documents WHERE workspace_id = ${ws.id}`);
      expect(rows).toEqual([0]);
    } finally {
      await pool.end();
    }
  });
});

describe('health', () => {
  it('reports database and nats', async () => {
    const res = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json().checks).toEqual({ database: 'UP', nats: 'UP', accepting: 'UP' });
  });
});
