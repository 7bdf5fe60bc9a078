import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyIdentityToken } from '@wiki/auth';
import { databaseUrl } from '@wiki/config';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql, z } from '@wiki/db';
import {
  connectEventBus,
  createEnvelope,
  type EventBus,
  eventsMigrations,
  publishInTx,
  startOutboxRelay,
} from '@wiki/events';
import { createMembershipAccess, type MembershipAccess, membershipMigrations } from '@wiki/projections';
import { createServiceClient } from '@wiki/service-client';
import { cleanupConfig, eventually, isolatedConfig, uniqueName } from '@wiki/testing';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const ws = '11111111-1111-4111-8111-111111111111';
const otherWs = '22222222-2222-4222-8222-222222222222';
const ada = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const bob = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

/**
 * Stands in for the workspace service's internal membership route, the peer the projection
 * reads through to; it also checks that the caller presents a valid service token. It fails (500)
 * for workspaces in `broken`.
 */
async function startMembershipPeer(
  secret: string,
  members: Map<string, string>,
  archived: Set<string>,
  broken: Set<string>,
) {
  const calls: string[] = [];
  /** The x-request-id of each call. */
  const requestIds: Array<string | undefined> = [];
  /** Set by a test to hold the next answer back until it says so (a lookup racing an event). */
  const gate: { hold: Promise<void> | null } = { hold: null };
  const server: Server = createServer(async (req, res) => {
    calls.push(req.url ?? '');
    requestIds.push(req.headers['x-request-id'] as string | undefined);
    try {
      const identity = await verifyIdentityToken(secret, String(req.headers['x-wiki-identity']));
      if (identity.kind !== 'service') throw new Error('not a service');
    } catch {
      res.writeHead(401).end();
      return;
    }
    const [, , , workspaceId, , userId] = (req.url ?? '').split('/');
    if (broken.has(workspaceId)) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"success":false}');
      return;
    }
    const role = members.get(`${workspaceId}:${userId}`);
    if (!role) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false}');
      return;
    }
    if (gate.hold) await gate.hold;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        success: true,
        data: { workspaceId, userId, memberId: null, role, workspaceArchived: archived.has(workspaceId) },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    requestIds,
    gate,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('membership projection', () => {
  const config = isolatedConfig({ issuer: 'http://unused', jwksUrl: 'http://unused/certs', audience: 'x' });
  const url = databaseUrl(config.pgUrl, `${uniqueName()}_membership`);
  const members = new Map<string, string>([[`${ws}:${ada}`, 'EDITOR']]);
  const archived = new Set<string>();
  const broken = new Set<string>();
  let pool: DatabasePool;
  let bus: EventBus;
  let access: MembershipAccess;
  let peer: Awaited<ReturnType<typeof startMembershipPeer>>;
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    await ensureDatabase(url);
    await migrate(url, [eventsMigrations, membershipMigrations]);
    pool = await createDatabasePool(url);
    peer = await startMembershipPeer(config.internalTokenSecret, members, archived, broken);
    config.urls.workspace = peer.url;
    bus = await connectEventBus({
      natsUrl: config.natsUrl,
      stream: config.eventsStream,
      prefix: config.eventsPrefix,
      name: 'test',
      logger: silent,
    });
    await bus.ensureStream();
    const relay = startOutboxRelay({ pool, bus, logger: silent });
    const client = createServiceClient({ service: 'test', config, logger: silent });
    access = createMembershipAccess({ pool, client, service: 'test', logger: silent, cacheMs: 0 });
    const projection = await access.startProjection(bus);
    stops.push(
      () => projection.stop(),
      () => relay.stop(),
    );
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
    pool.transaction((tx) =>
      publishInTx(tx, { type, workspaceId: (data.workspaceId as string) ?? (data.id as string), data }),
    );
  /** Publishes an event that happened at `occurredAt`, as a late retry of an older event arrives. */
  const publishAt = async (occurredAt: Date, type: string, data: Record<string, unknown>) => {
    const envelope = {
      ...createEnvelope({ type, workspaceId: (data.workspaceId ?? data.id) as string, data }),
      occurredAt: occurredAt.toISOString(),
    };
    await pool.query(
      sql.unsafe`INSERT INTO event_outbox (id, type, envelope) VALUES (${envelope.id}, ${type}, ${JSON.stringify(envelope)}::jsonb)`,
    );
    return envelope.id;
  };
  const applied = (eventId: string) =>
    eventually(async () =>
      expect(await pool.exists(sql.unsafe`SELECT 1 FROM event_consumed WHERE event_id = ${eventId}`)).toBe(true),
    );
  const projected = (workspaceId: string, userId: string) =>
    pool.maybeOneFirst(sql.type(z.object({ role: z.string().nullable() }))`
      SELECT role FROM membership_projection WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`);

  it('reads through to the workspace service for an unknown membership and keeps the answer', async () => {
    expect(await access.roleOf(ws, ada)).toBe('EDITOR');
    expect(peer.calls).toEqual([`/internal/workspaces/${ws}/members/${ada}`]);
    expect(await projected(ws, ada)).toBe('EDITOR');
    expect(await access.roleOf(ws, ada)).toBe('EDITOR');
    expect(peer.calls).toHaveLength(1);
  });

  it('sends the request being served along with a read-through', async () => {
    const team = randomUUID();
    members.set(`${team}:${ada}`, 'VIEWER');
    expect(await access.requireRole(team, ada, 'VIEWER', 'Workspace', 'req-membership-1')).toBe('VIEWER');
    expect(peer.requestIds[peer.calls.indexOf(`/internal/workspaces/${team}/members/${ada}`)]).toBe('req-membership-1');
  });

  it('answers 503 SERVICE_UNAVAILABLE, keeping nothing, when the workspace service fails or sends no role', async () => {
    const down = randomUUID();
    broken.add(down);
    const odd = randomUUID();
    members.set(`${odd}:${ada}`, 'EMPEROR');
    for (const workspaceId of [down, odd]) {
      await expect(access.requireRole(workspaceId, ada, 'VIEWER')).rejects.toMatchObject({
        statusCode: 503,
        code: 'SERVICE_UNAVAILABLE',
      });
      expect(await projected(workspaceId, ada)).toBeNull();
    }
    broken.delete(down);
    members.set(`${down}:${ada}`, 'EDITOR');
    expect(await access.roleOf(down, ada)).toBe('EDITOR');
  });

  it('answers 404 for non-members and 403 for a role below the minimum', async () => {
    await expect(access.requireRole(ws, bob, 'VIEWER')).rejects.toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    await expect(access.requireRole(ws, ada, 'ADMIN')).rejects.toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
    expect(await access.requireRole(ws, ada, 'EDITOR')).toBe('EDITOR');
  });

  it('follows member events: added, role changed, removed', async () => {
    await publish('member.added', { workspaceId: ws, userId: bob, memberId: randomUUID(), role: 'VIEWER' });
    await eventually(async () => expect(await projected(ws, bob)).toBe('VIEWER'));
    await publish('member.role_changed', { workspaceId: ws, userId: ada, memberId: randomUUID(), role: 'ADMIN' });
    await eventually(async () => expect(await access.roleOf(ws, ada)).toBe('ADMIN'));
    await publish('member.removed', { workspaceId: ws, userId: bob, memberId: randomUUID(), role: 'VIEWER' });
    await eventually(async () => expect(await projected(ws, bob)).toBeNull());
    expect(await access.roleOf(ws, bob)).toBeNull(); // the peer does not know bob either
  });

  it('keeps the most recent of member events that arrive out of order', async () => {
    const carol = randomUUID();
    const t0 = Date.now();
    await applied(
      await publishAt(new Date(t0), 'member.added', {
        workspaceId: ws,
        userId: carol,
        memberId: randomUUID(),
        role: 'EDITOR',
      }),
    );
    await applied(
      await publishAt(new Date(t0 + 2000), 'member.removed', {
        workspaceId: ws,
        userId: carol,
        memberId: randomUUID(),
        role: 'EDITOR',
      }),
    );
    // A retry of an older event, delivered after the removal, does not bring carol back...
    await applied(
      await publishAt(new Date(t0 + 1000), 'member.role_changed', {
        workspaceId: ws,
        userId: carol,
        memberId: randomUUID(),
        role: 'ADMIN',
      }),
    );
    expect(await access.roleOf(ws, carol)).toBeNull();
    // ...and a removed member is not asked for again (the peer would not know carol anyway).
    expect(peer.calls.filter((c) => c.endsWith(carol))).toEqual([]);
    // A newer event does.
    await applied(
      await publishAt(new Date(t0 + 3000), 'member.added', {
        workspaceId: ws,
        userId: carol,
        memberId: randomUUID(),
        role: 'VIEWER',
      }),
    );
    expect(await access.roleOf(ws, carol)).toBe('VIEWER');
  });

  it('keeps a removal that lands while a read-through is under way', async () => {
    const dave = randomUUID();
    members.set(`${ws}:${dave}`, 'EDITOR');
    let release!: () => void;
    peer.gate.hold = new Promise<void>((r) => (release = r));
    const lookup = access.roleOf(ws, dave);
    await eventually(async () => expect(peer.calls.some((c) => c.endsWith(dave))).toBe(true));
    // The workspace service answered "EDITOR" just before the member was removed; the event
    // gets here before the answer does.
    await applied(
      await publishAt(new Date(), 'member.removed', {
        workspaceId: ws,
        userId: dave,
        memberId: randomUUID(),
        role: 'EDITOR',
      }),
    );
    peer.gate.hold = null;
    release();
    expect(await lookup).toBeNull();
    expect(await access.roleOf(ws, dave)).toBeNull();
  });

  it('shuts an archived workspace and opens it again when it is restored (ARCHITECTURE 5.13)', async () => {
    const shelved = randomUUID();
    await publish('member.added', { workspaceId: shelved, userId: ada, memberId: randomUUID(), role: 'OWNER' });
    await eventually(async () => expect(await access.roleOf(shelved, ada)).toBe('OWNER'));
    await publish('workspace.updated', { id: shelved, name: 'Shelved', icon: null, isArchived: true, ownerId: ada });
    await eventually(async () => expect(await access.roleOf(shelved, ada)).toBeNull());
    await expect(access.requireRole(shelved, ada, 'VIEWER')).rejects.toMatchObject({ statusCode: 404 });
    // An older update that still said "not archived", delivered late, changes nothing.
    await applied(
      await publishAt(new Date(Date.now() - 60_000), 'workspace.updated', {
        id: shelved,
        name: 'Shelved',
        icon: null,
        isArchived: false,
        ownerId: ada,
      }),
    );
    expect(await access.roleOf(shelved, ada)).toBeNull();
    await publish('workspace.updated', { id: shelved, name: 'Shelved', icon: null, isArchived: false, ownerId: ada });
    await eventually(async () => expect(await access.roleOf(shelved, ada)).toBe('OWNER'));
  });

  it('learns from the read-through that a workspace is archived', async () => {
    const attic = randomUUID();
    members.set(`${attic}:${bob}`, 'EDITOR');
    archived.add(attic);
    expect(await access.roleOf(attic, bob)).toBeNull();
    expect(
      await pool.oneFirst(sql.type(z.object({ is_archived: z.boolean() }))`
      SELECT is_archived FROM workspace_access_projection WHERE workspace_id = ${attic}`),
    ).toBe(true);
    // Restored: the workspace service says so, and its event opens the workspace here.
    archived.delete(attic);
    await publish('workspace.updated', { id: attic, name: 'Attic', icon: null, isArchived: false, ownerId: bob });
    await eventually(async () => expect(await access.roleOf(attic, bob)).toBe('EDITOR'));
  });

  it('keeps a deleted workspace shut whatever arrives after the deletion', async () => {
    const gone = randomUUID();
    await publish('member.added', { workspaceId: gone, userId: bob, memberId: randomUUID(), role: 'EDITOR' });
    await eventually(async () => expect(await access.roleOf(gone, bob)).toBe('EDITOR'));
    await publish('workspace.deleted', { id: gone, name: 'Gone', icon: null, isArchived: false, ownerId: bob });
    await eventually(async () => expect(await access.roleOf(gone, bob)).toBeNull());
    await applied(
      await publishAt(new Date(Date.now() + 60_000), 'workspace.updated', {
        id: gone,
        name: 'Gone',
        icon: null,
        isArchived: false,
        ownerId: bob,
      }),
    );
    await applied(
      await publishAt(new Date(Date.now() + 60_000), 'member.added', {
        workspaceId: gone,
        userId: bob,
        memberId: randomUUID(),
        role: 'ADMIN',
      }),
    );
    expect(await access.roleOf(gone, bob)).toBeNull();
  });

  it('purges a deleted workspace', async () => {
    await publish('member.added', { workspaceId: otherWs, userId: ada, memberId: randomUUID(), role: 'OWNER' });
    await eventually(async () => expect(await projected(otherWs, ada)).toBe('OWNER'));
    await publish('workspace.deleted', { id: ws, name: 'x', icon: null, isArchived: false, ownerId: ada });
    await eventually(async () => expect(await projected(ws, ada)).toBeNull());
    expect(await projected(otherWs, ada)).toBe('OWNER');
  });
});
