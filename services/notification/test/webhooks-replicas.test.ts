import { randomUUID } from 'node:crypto';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { type EventBus, subjectFor, type TypedEvent } from '@wiki/events';
import type { RunningPart } from '@wiki/testing';
import {
  connectTestBus,
  eventually,
  type SignedInUser,
  type Stack,
  signInNew,
  testEvent,
  workspaceWith,
} from '@wiki/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDeliveries, WEBHOOKS_CONSUMER } from '../src/events/webhook-deliveries.js';
import { startService } from '../src/service.js';
import { queuePrefixOf, WEBHOOK_QUEUE, WebhookQueue } from '../src/webhooks/queue.js';
import { startNotificationStack } from './helpers.js';
import { addHook, type Hook } from './webhook-hooks.js';
import { WebhookReceiver } from './webhook-receiver.js';

// Two notification replicas on one database, stream and queue: the stack's and `second`.
const ENV = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50' };

let stack: Stack;
let second: RunningPart;
let pool: DatabasePool;
let bus: EventBus;
let jobs: Queue;
let queue: WebhookQueue;
let receiver: WebhookReceiver;
let owner: SignedInUser;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  stack = await startNotificationStack(ENV);
  second = await startService(stack.config, { logLevel: 'silent' });
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  bus = await connectTestBus(stack.config);
  const prefix = queuePrefixOf(stack.config.dbPrefix);
  jobs = new Queue(WEBHOOK_QUEUE, { connection: { url: stack.config.redisUrl }, prefix });
  queue = new WebhookQueue(stack.config.redisUrl, prefix);
  owner = await signInNew(stack, 'Rhea Replica');
});
afterAll(async () => {
  await jobs?.close();
  await queue?.close();
  await bus?.close();
  await pool?.end();
  await second?.stop();
  await stack?.stop();
  await receiver?.close();
});

async function hooked(path: string): Promise<Hook> {
  const ws = await workspaceWith(stack, owner, []);
  return addHook(
    stack,
    owner,
    ws.id,
    receiver.rule(path, () => 200),
    ['document.updated'],
  );
}

const update = (hook: Hook, documentId: string, title: string) =>
  testEvent('document.updated', {
    data: { id: documentId, workspaceId: hook.workspaceId, title, plainText: '', changed: ['title'] },
  });

/** Publishes as the document service's relay would, answering the event's stream sequence. */
async function publish(event: TypedEvent<'document.updated'>): Promise<number> {
  const ack = await bus.js.publish(subjectFor(bus.prefix, event.type), JSON.stringify(event), { msgID: event.id });
  return ack.seq;
}

class Rollback extends Error {}

/**
 * Holds the webhooks consumer's transaction for `event` (whichever replica gets it) until
 * `release`: the test's own uncommitted claim on (consumer, event) makes its insert wait, and the
 * rollback lets it go on to make the event's deliveries.
 */
async function holdEvent(eventId: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let claimed!: () => void;
  const claim = new Promise<void>((resolve) => {
    claimed = resolve;
  });
  const held = pool
    .transaction(async (tx) => {
      await tx.query(
        sql.unsafe`INSERT INTO event_consumed (consumer, event_id) VALUES (${WEBHOOKS_CONSUMER}, ${eventId})`,
      );
      claimed();
      await released;
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  await claim;
  return async () => {
    release();
    await held;
  };
}

/** The delivery made for the event to the webhook, once there is one. */
const deliveryOf = (hook: Hook, eventId: string) =>
  pool.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM webhook_deliveries WHERE webhook_id = ${hook.id} AND event_id = ${eventId}`);

/** True once the worker has looked at the delivery's job and put it back to wait. */
const putBack = async (deliveryId: string) => (await jobs.getJobState(`${deliveryId}_r0`)) === 'delayed';

const titlesAt = (path: string) => receiver.at(path).map((r) => JSON.parse(r.body).data.title as string);

describe('webhook order across two replicas', () => {
  it('holds a delivery while the ack floor is below its event, and sends it once the floor passes', async () => {
    const hook = await hooked('/floor');
    const older = update(hook, randomUUID(), 'older, another document');
    const release = await holdEvent(older.id);
    let released = false;
    try {
      await publish(older);
      const newer = update(hook, randomUUID(), 'newer');
      const newerSeq = await publish(newer);
      // The newer event's row as another replica would commit it while the older one is held
      // (if a replica made it already, it stored the same sequence and queued its job).
      await queue.enqueue(
        await pool.transaction((tx) => makeDeliveries(newer, tx, { retryWindowMs: 60_000 }, { streamSeq: newerSeq })),
      );
      const id = await eventually(async () => {
        const found = await deliveryOf(hook, newer.id);
        expect(found).not.toBeNull();
        return found as string;
      });
      await eventually(async () => expect(await putBack(id)).toBe(true));
      expect(receiver.at('/floor')).toEqual([]);
      await release();
      released = true;
      await eventually(() => expect(titlesAt('/floor').sort()).toEqual(['newer', 'older, another document']));
    } finally {
      if (!released) await release();
    }
  });

  it('sends one document’s events in stream order when a newer event’s delivery commits first', async () => {
    const hook = await hooked('/race');
    const documentId = randomUUID();
    const [first, ...later] = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'].map((t) => update(hook, documentId, t));
    const release = await holdEvent(first.id);
    let released = false;
    try {
      const firstSeq = await publish(first);
      // Delivered to one replica, whose transaction now waits on the held claim.
      await eventually(async () => {
        const info = await bus.jsm.consumers.info(bus.stream, WEBHOOKS_CONSUMER);
        expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(firstSeq);
      });
      for (const event of later) await publish(event);
      // The other replica commits newer deliveries (the held one queues what it pulls behind
      // the held event), and its worker puts them back instead of sending them.
      const early = await eventually(async () => {
        const ids = (await Promise.all(later.map((e) => deliveryOf(hook, e.id)))).filter((id) => id !== null);
        expect(ids.length).toBeGreaterThan(0);
        return ids as string[];
      });
      expect(await deliveryOf(hook, first.id)).toBeNull();
      await eventually(async () => expect(await putBack(early[0])).toBe(true));
      expect(receiver.at('/race')).toEqual([]);
      await release();
      released = true;
      await eventually(() => expect(receiver.at('/race')).toHaveLength(6));
      expect(titlesAt('/race')).toEqual(['v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
    } finally {
      if (!released) await release();
    }
  });
});
