import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createWorkspace, eventually, freePort, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateServer, startPrivateNats } from '../../scripts/lib/private-servers.js';
import { startPlatform } from '../platform.js';

/**
 * NATS goes away (a private nats-server with JetStream the test kills, then starts again on the
 * same store). Writes go through the outbox, so reads and writes keep working; readiness stays true
 * and names NATS as down with a warning (taking every replica out of rotation would turn a delay of
 * events into an outage); once NATS is back the events held in the outbox go out, each once.
 */
let nats: PrivateServer;
let stack: Stack;
let owner: SignedInUser;
let workspaceId: string;
let pool: DatabasePool;

beforeAll(async () => {
  nats = await startPrivateNats(await freePort());
  stack = await startPlatform(['workspace', 'document'], { env: { NATS_URL: nats.url } });
  owner = await signInNew(stack, 'Nats Outage');
  workspaceId = (await createWorkspace(stack, owner)).id;
  pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 2 });
});

afterAll(async () => {
  await pool?.end().catch(() => undefined);
  await stack?.stop();
  await nats?.stop();
});

async function readiness(): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.serviceUrls.document}/health/ready`);
  return { status: res.status, body: await res.json() };
}

const pendingEvents = () =>
  pool.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM event_outbox WHERE sent_at IS NULL`,
  );

/** How many times each document's document.created event is in the stream. */
async function createdInStream(): Promise<Map<string, number>> {
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(stack.config.eventsStream);
    const counts = new Map<string, number>();
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stack.config.eventsStream, { seq }).catch(() => null);
      if (message?.subject !== `${stack.config.eventsPrefix}.document.created`) continue;
      const { data } = message.json<{ data: { id: string } }>();
      counts.set(data.id, (counts.get(data.id) ?? 0) + 1);
    }
    return counts;
  } finally {
    await nc.close();
  }
}

describe('NATS stopped', () => {
  it('serves reads and writes, stays ready naming NATS down, and sends the held events once it is back', async () => {
    expect(await readiness()).toMatchObject({ status: 200, body: { checks: { nats: 'UP' } } });

    await nats.halt();

    await eventually(
      async () => {
        const ready = await readiness();
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({
          status: 'UP',
          checks: { database: 'UP', nats: 'DOWN', accepting: 'UP' },
          details: { nats: { warning: expect.stringContaining('outbox') } },
        });
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );

    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await stack.request('POST', '/api/v1/documents', {
        token: owner.token,
        body: { workspaceId, title: `while NATS is down ${i}` },
      });
      expect(res.status).toBe(201);
      created.push(res.body.data.id);
    }
    const edited = await stack.request('PUT', `/api/v1/documents/${created[0]}`, {
      token: owner.token,
      body: { title: 'edited while NATS is down' },
    });
    expect(edited.status).toBe(200);
    expect(
      (await stack.request('GET', `/api/v1/documents/${created[0]}`, { token: owner.token })).body.data.title,
    ).toBe('edited while NATS is down');
    expect(
      (await stack.request('GET', `/api/v1/documents?workspaceId=${workspaceId}`, { token: owner.token })).status,
    ).toBe(200);
    // The workspace service writes through its outbox too.
    expect(
      (await stack.request('POST', '/api/v1/workspaces', { token: owner.token, body: { name: 'Later' } })).status,
    ).toBe(201);
    expect(await pendingEvents()).toBeGreaterThanOrEqual(created.length);

    await nats.resume();

    await eventually(
      async () => expect(await readiness()).toMatchObject({ status: 200, body: { checks: { nats: 'UP' } } }),
      {
        timeoutMs: 15_000,
        intervalMs: 200,
      },
    );
    await eventually(async () => expect(await pendingEvents()).toBe(0), { timeoutMs: 20_000, intervalMs: 200 });
    const published = await createdInStream();
    for (const id of created) expect({ id, times: published.get(id) }).toEqual({ id, times: 1 });
  }, 90_000);
});
