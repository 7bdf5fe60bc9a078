import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import type { EventBus } from '@wiki/events';
import { connectTestBus, eventually, publishEvent, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconnectingStream } from '../../../scripts/lib/reconnecting-stream.js';
import { startService as startNotification } from '../src/service.js';
import { startNotificationStack } from './helpers.js';

/**
 * The stream through the gateway at two notification replicas, each with its event consumer,
 * while notifications are made continuously and the replica holding the stream stops gracefully
 * and starts again (what `npm run restart:rolling` does): the reconnecting client must receive
 * every notification exactly once.
 */
const STREAM = '/api/v1/notifications/stream';
const TYPE = 'MEMBER_ROLE_CHANGED';

type Replica = { app: { notificationStreams: { open: number } }; stop(): Promise<void>; url: string };

let stack: Stack;
let bus: EventBus;
let pool: DatabasePool;
let ada: SignedInUser;
let bob: SignedInUser;
let replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  // A short stop delay of its own (the stack's parts keep none): the stream stays served through it.
  const running = await startNotification({ ...stack.config, shutdownDelayMs: 500 });
  await running.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(running.app.server.address() as AddressInfo).port}`;
  return { app: running.app, stop: running.stop, url };
}

/** Behind the gateway: the stack's replica and these. */
function route(): void {
  stack.config.replicaUrls.notification = [stack.serviceUrls.notification!, ...replicas.map((r) => r.url)];
}

beforeAll(async () => {
  stack = await startNotificationStack();
  bus = await connectTestBus(stack.config);
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  ada = await signInNew(stack, 'Ada Admin');
  bob = await signInNew(stack, 'Bob Restart');
  replicas = [await startReplica()];
  route();
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop().catch(() => undefined);
  await bus?.close();
  await pool?.end();
  await stack?.stop();
});

describe('the notification stream across a replica restart', () => {
  it('delivers every notification made meanwhile exactly once', async () => {
    const notify = () =>
      publishEvent(bus, {
        type: 'member.role_changed',
        actorId: ada.id,
        data: { workspaceId: randomUUID(), userId: bob.id, memberId: randomUUID(), role: 'EDITOR' },
      });
    // Counted in the database: the gateway cannot reach the service while the test keeps it out.
    const stored = () =>
      pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM notifications WHERE user_id = ${bob.id}`);
    // Bob's numbers start near 100, so that the catch-up after the reconnect crosses 99 → 100
    // (they were once ordered as text there, and part of that page was sent twice).
    for (let i = 0; i < 95; i++) await notify();
    await eventually(async () => expect(await stored()).toBe(95), { timeoutMs: 30_000 });

    // Opened until it sits on the replica that is restarted (the gateway goes round robin).
    let stream = new ReconnectingStream(`${stack.gatewayUrl}${STREAM}`, bob.token, TYPE);
    await stream.opened;
    for (let i = 0; i < 6 && replicas[0].app.notificationStreams.open === 0; i++) {
      stream.close();
      stream = new ReconnectingStream(`${stack.gatewayUrl}${STREAM}`, bob.token, TYPE);
      await stream.opened;
    }
    expect(replicas[0].app.notificationStreams.open).toBe(1);
    for (let i = 0; i < 3; i++) await notify();
    await eventually(() => expect(stream.notifications.size).toBe(3), { timeoutMs: 30_000 });

    let made = 3;
    let producing = true;
    let producer: Promise<void> = Promise.resolve();
    try {
      // While it restarts the gateway has only it to offer, so the client stays out (503s, retried
      // each second) until notifications past 99 are stored, and resumes with all of them at once.
      const stopped = replicas[0];
      stack.config.replicaUrls.notification = [stopped.url, stopped.url];
      const stopping = stopped.stop();
      await eventually(() => expect(stream.reconnects).toBe(1), { timeoutMs: 30_000 });
      producer = (async () => {
        while (producing) {
          await notify();
          made++;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      await stopping;
      await eventually(async () => expect(await stored()).toBeGreaterThan(105), { timeoutMs: 30_000 });
      replicas = [await startReplica()];
      route();
      await eventually(() => expect(stream.notifications.size).toBeGreaterThan(30), { timeoutMs: 30_000 });
    } finally {
      producing = false;
      await producer;
    }
    await eventually(() => expect(stream.notifications.size).toBe(made), { timeoutMs: 30_000 });
    stream.close();
    expect(stream.doubled).toBe(0);
  }, 120_000);
});
