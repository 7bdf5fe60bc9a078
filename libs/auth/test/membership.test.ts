import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMembershipAccess, membershipMigrations, type MembershipAccess, verifyIdentityToken } from '@wiki/auth';
import { databaseUrl } from '@wiki/config';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { connectEventBus, type EventBus, eventsMigrations, publishInTx, startOutboxRelay } from '@wiki/events';
import { cleanupConfig, eventually, isolatedConfig, uniqueName } from '@wiki/testing';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const ws = '11111111-1111-4111-8111-111111111111';
const otherWs = '22222222-2222-4222-8222-222222222222';
const ada = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const bob = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

/**
 * Stands in for the workspace service's internal membership route, the peer the projection
 * reads through to; it also checks that the caller presents a valid service token.
 */
async function startMembershipPeer(secret: string, members: Map<string, string>) {
  const calls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    calls.push(req.url ?? '');
    try {
      const identity = await verifyIdentityToken(secret, String(req.headers['x-wiki-identity']));
      if (identity.kind !== 'service') throw new Error('not a service');
    } catch {
      res.writeHead(401).end();
      return;
    }
    const [, , , workspaceId, , userId] = (req.url ?? '').split('/');
    const role = members.get(`${workspaceId}:${userId}`);
    if (!role) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: true, data: { workspaceId, userId, memberId: null, role } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise((r) => server.close(r)) };
}

describe('membership projection', () => {
  const config = isolatedConfig({ issuer: 'http://unused', jwksUrl: 'http://unused/certs', audience: 'x' });
  const url = databaseUrl(config.pgUrl, `${uniqueName()}_membership`);
  const members = new Map<string, string>([[`${ws}:${ada}`, 'EDITOR']]);
  let pool: DatabasePool;
  let bus: EventBus;
  let access: MembershipAccess;
  let peer: Awaited<ReturnType<typeof startMembershipPeer>>;
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    await ensureDatabase(url);
    await migrate(url, [eventsMigrations, membershipMigrations]);
    pool = await createDatabasePool(url);
    peer = await startMembershipPeer(config.internalTokenSecret, members);
    config.urls.workspace = peer.url;
    bus = await connectEventBus({ natsUrl: config.natsUrl, stream: config.eventsStream, prefix: config.eventsPrefix, name: 'test', logger: silent });
    await bus.ensureStream();
    const relay = startOutboxRelay({ pool, bus, logger: silent });
    access = createMembershipAccess({ pool, config, service: 'test', logger: silent, cacheMs: 0 });
    const projection = await access.startProjection(bus);
    stops.push(() => projection.stop(), () => relay.stop());
  });

  afterAll(async () => {
    for (const stop of stops) await stop();
    await bus?.close();
    await pool?.end();
    await peer?.close();
    await dropDatabase(url);
    await cleanupConfig(config);
  });

  const publish = (type: string, data: Record<string, unknown>) =>
    pool.transaction((tx) => publishInTx(tx, { type, workspaceId: (data.workspaceId as string) ?? (data.id as string), data }));
  const projected = (workspaceId: string, userId: string) =>
    pool.maybeOneFirst(sql.type(z.object({ role: z.string() }))`
      SELECT role FROM membership_projection WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`);

  it('reads through to the workspace service for an unknown membership and keeps the answer', async () => {
    expect(await access.roleOf(ws, ada)).toBe('EDITOR');
    expect(peer.calls).toEqual([`/internal/workspaces/${ws}/members/${ada}`]);
    expect(await projected(ws, ada)).toBe('EDITOR');
    expect(await access.roleOf(ws, ada)).toBe('EDITOR');
    expect(peer.calls).toHaveLength(1);
  });

  it('answers 404 for non-members and 403 for a role below the minimum', async () => {
    await expect(access.requireRole(ws, bob, 'VIEWER')).rejects.toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    await expect(access.requireRole(ws, ada, 'ADMIN')).rejects.toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
    expect(await access.requireRole(ws, ada, 'EDITOR')).toBe('EDITOR');
  });

  it('follows member events: added, role changed, removed', async () => {
    await publish('member.added', { workspaceId: ws, userId: bob, memberId: null, role: 'VIEWER' });
    await eventually(async () => expect(await projected(ws, bob)).toBe('VIEWER'));
    await publish('member.role_changed', { workspaceId: ws, userId: ada, memberId: null, role: 'ADMIN' });
    await eventually(async () => expect(await access.roleOf(ws, ada)).toBe('ADMIN'));
    await publish('member.removed', { workspaceId: ws, userId: bob, memberId: null, role: 'VIEWER' });
    await eventually(async () => expect(await projected(ws, bob)).toBeNull());
    expect(await access.roleOf(ws, bob)).toBeNull(); // the peer does not know bob either
  });

  it('purges a deleted workspace', async () => {
    await publish('member.added', { workspaceId: otherWs, userId: ada, memberId: null, role: 'OWNER' });
    await eventually(async () => expect(await projected(otherWs, ada)).toBe('OWNER'));
    await publish('workspace.deleted', { id: ws, name: 'x', icon: null, isArchived: false, ownerId: ada });
    await eventually(async () => expect(await projected(ws, ada)).toBeNull());
    expect(await projected(otherWs, ada)).toBe('OWNER');
  });
});
