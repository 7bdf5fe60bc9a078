import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyIdentityToken } from '@wiki/auth';
import { databaseUrl } from '@wiki/config';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { type EventBus, eventsMigrations, type RunningConsumer } from '@wiki/events';
import {
  createUsersProjection,
  startUsersProjection,
  type UsersProjection,
  usersProjectionMigrations,
} from '@wiki/projections';
import { createServiceClient, type RemoteUser } from '@wiki/service-client';
import { cleanupConfig, connectTestBus, eventually, isolatedConfig, testEvent, uniqueName } from '@wiki/testing';

const silent = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * Stands in for the workspace service's `GET /internal/users/:idOrIdpUid`, the peer the projection
 * reads through to; it checks the caller's service token. A test can hold its next answer back
 * (a look-up racing an event).
 */
async function startUsersPeer(secret: string, users: Map<string, RemoteUser>) {
  const calls: string[] = [];
  const gate: { hold: Promise<void> | null } = { hold: null };
  const server: Server = createServer(async (req, res) => {
    calls.push(req.url ?? '');
    try {
      const identity = await verifyIdentityToken(secret, String(req.headers['x-wiki-identity']));
      if (identity.kind !== 'service') throw new Error('not a service');
    } catch {
      res.writeHead(401).end();
      return;
    }
    const key = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    const user = users.get(key) ?? [...users.values()].find((u) => u.idpUid === key);
    if (!user) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false}');
      return;
    }
    if (gate.hold) await gate.hold;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: user }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    gate,
    close: () => new Promise((r) => server.close(r)),
  };
}

const Stored = z.object({ name: z.string(), eventAt: z.string().nullable() });

describe('users projection', () => {
  const config = isolatedConfig({ issuer: 'http://unused', jwksUrl: 'http://unused/certs', audience: 'x' });
  const url = databaseUrl(config.pgUrl, `${uniqueName()}_users`);
  const remote = new Map<string, RemoteUser>();
  let pool: DatabasePool;
  let bus: EventBus;
  let users: UsersProjection;
  let consumer: RunningConsumer;
  let peer: Awaited<ReturnType<typeof startUsersPeer>>;

  beforeAll(async () => {
    await ensureDatabase(url);
    await migrate(url, [eventsMigrations, usersProjectionMigrations]);
    pool = await createDatabasePool(url);
    peer = await startUsersPeer(config.internalTokenSecret, remote);
    config.urls.workspace = peer.url;
    bus = await connectTestBus(config);
    await bus.ensureStream();
    const client = createServiceClient({ service: 'test', config, logger: silent });
    users = createUsersProjection({ pool, client, logger: silent });
    consumer = await startUsersProjection({ bus, pool, service: 'test', logger: silent });
  });

  afterAll(async () => {
    await consumer?.stop();
    await bus?.close();
    await pool?.end();
    await peer?.close();
    await dropDatabase(url);
    await cleanupConfig(config);
  });

  const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

  /** Publishes user.upserted as having happened at `occurredAt` and waits until `test-users` applied it. */
  async function upserted(id: string, name: string, occurredAt: string) {
    const event = testEvent('user.upserted', { data: { id, name } });
    event.occurredAt = occurredAt;
    await bus.publish(event);
    await eventually(async () =>
      expect(
        await pool.exists(sql.unsafe`
          SELECT 1 FROM event_consumed WHERE consumer = 'test-users' AND event_id = ${event.id}`),
      ).toBe(true),
    );
  }

  const stored = (id: string) =>
    pool.maybeOne(sql.type(Stored)`SELECT name, event_at AS "eventAt" FROM projection_users WHERE id = ${id}`);

  const remoteUser = (id: string, name: string): RemoteUser => ({
    id,
    idpUid: `idp|${id}`,
    email: `${id}@example.com`,
    name,
    avatarUrl: null,
  });

  it('takes the newest user.upserted and ignores an older one that arrives late', async () => {
    const id = randomUUID();
    await upserted(id, 'Ada', at(-2000));
    expect((await users.find(id))?.name).toBe('Ada');
    await upserted(id, 'Ada Lovelace', at(0)); // the rename
    expect((await users.find(id))?.name).toBe('Ada Lovelace');
    await upserted(id, 'Ada', at(-1000)); // a retry of an event from before the rename
    expect((await users.find(id))?.name).toBe('Ada Lovelace');
    expect(await users.resolve(id)).toEqual({
      id,
      idpUid: `idp|${id}`,
      email: `${id}@example.com`,
      name: 'Ada Lovelace',
      avatarUrl: null,
    });
    expect(await users.find(`idp|${id}`)).toMatchObject({ id, name: 'Ada Lovelace' });
    expect(peer.calls.filter((c) => c.includes(id))).toEqual([]);
  });

  it('reads a missing user through and lets any event replace what it stored', async () => {
    const id = randomUUID();
    remote.set(id, remoteUser(id, 'Bob from the workspace service'));
    expect(await users.resolve(id, 'req-users-1')).toMatchObject({ id, name: 'Bob from the workspace service' });
    expect(await stored(id)).toEqual({ name: 'Bob from the workspace service', eventAt: null });
    // An event, however old, is the owner's word: it replaces the read-through row.
    await upserted(id, 'Bob', '2001-01-01T00:00:00.000Z');
    expect(await stored(id)).toEqual({ name: 'Bob', eventAt: '2001-01-01T00:00:00.000Z' });
  });

  it('does not let a read-through overwrite a row an event wrote while it was under way', async () => {
    const id = randomUUID();
    remote.set(id, remoteUser(id, 'Carol (old answer)'));
    let release!: () => void;
    peer.gate.hold = new Promise<void>((r) => (release = r));
    const lookup = users.resolve(id);
    await eventually(async () => expect(peer.calls.some((c) => c.endsWith(id))).toBe(true));
    // The user was renamed just after the workspace service answered; the event gets here first.
    await upserted(id, 'Carol Renamed', at(0));
    peer.gate.hold = null;
    release();
    expect(await lookup).toMatchObject({ id, name: 'Carol Renamed' });
    expect((await stored(id))?.name).toBe('Carol Renamed');
  });

  it('remembers a caller from their identity without overwriting anything, and gives way to events', async () => {
    const dave = randomUUID();
    await users.remember({ userId: dave, name: 'Dave', email: 'dave@example.com', idpUid: `idp|${dave}` });
    expect(await stored(dave)).toEqual({ name: 'Dave', eventAt: null });
    await upserted(dave, 'Dave Renamed', '2001-01-01T00:00:00.000Z');
    expect((await stored(dave))?.name).toBe('Dave Renamed');

    const erin = randomUUID();
    await upserted(erin, 'Erin', at(0));
    await users.remember({ userId: erin, name: 'Erin (stale token)' });
    expect((await stored(erin))?.name).toBe('Erin');

    const nameless = randomUUID();
    await users.remember({ userId: nameless });
    expect(await stored(nameless)).toBeNull();
  });

  it('resolves many at once, leaving out users nobody knows and look-ups that failed', async () => {
    const [known, fetched, unknown] = [randomUUID(), randomUUID(), randomUUID()];
    await upserted(known, 'Known', at(0));
    remote.set(fetched, remoteUser(fetched, 'Fetched'));
    const found = await users.resolveMany([known, fetched, unknown, known]);
    expect([...found.keys()].sort()).toEqual([known, fetched].sort());
    expect(found.get(fetched)?.name).toBe('Fetched');
    expect((await users.findMany([known, fetched, unknown])).map((u) => u.name).sort()).toEqual(['Fetched', 'Known']);

    const away = randomUUID();
    config.urls.workspace = 'http://127.0.0.1:1';
    try {
      expect([...(await users.resolveMany([known, away])).keys()]).toEqual([known]);
      await expect(users.resolve(away)).rejects.toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      config.urls.workspace = peer.url;
    }
  });
});
