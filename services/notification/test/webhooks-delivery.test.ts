import { randomUUID } from 'node:crypto';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import {
  connectTestBus,
  createDocument,
  eventually,
  publishEvent,
  recordingLogger,
  type SignedInUser,
  type Stack,
  signInNew,
  testEvent,
  workspaceWith,
} from '@wiki/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDeliveries, startStaleDeliverySweep } from '../src/events/webhook-deliveries.js';
import { queuePrefixOf, WEBHOOK_QUEUE, WebhookQueue } from '../src/webhooks/queue.js';
import { allOf, awaitNotification, startNotificationStack } from './helpers.js';
import { addHook as addWebhook, type Hook } from './webhook-hooks.js';
import { verifySignature, WebhookReceiver } from './webhook-receiver.js';

// Loopback is allowed in this file only; retries start at 50 ms; a webhook failing for 1.5 s is disabled.
const ENV = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_DISABLE_AFTER_MS: '1500',
};

let stack: Stack;
let pool: DatabasePool;
let receiver: WebhookReceiver;
let owner: SignedInUser;
let admin: SignedInUser;
let editor: SignedInUser;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  stack = await startNotificationStack(ENV);
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  [owner, admin, editor] = await Promise.all(['Ona Owner', 'Abe Admin', 'Ed Editor'].map((n) => signInNew(stack, n)));
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
  await receiver?.close();
});

/** A workspace of its own (owner, admin, editor) with one webhook to `url` (document events unless told). */
async function hookedWorkspace(url: string, events: string[] = ['document.*']): Promise<Hook> {
  const ws = await workspaceWith(stack, owner, [
    [admin, 'ADMIN'],
    [editor, 'EDITOR'],
  ]);
  return addHook(ws.id, url, events);
}

const addHook = (workspaceId: string, url: string, events: string[]) =>
  addWebhook(stack, admin, workspaceId, url, events);

const deliveries = async (hook: Hook, query = '?size=100') => {
  const res = await stack.request('GET', `/api/v1/webhooks/${hook.id}/deliveries${query}`, { token: admin.token });
  expect(res.status).toBe(200);
  return res.body.data as {
    content: Array<{
      id: string;
      event: string;
      status: string;
      attempts: number;
      responseStatus: number | null;
      durationMs: number | null;
      createdAt: string;
      deliveredAt: string | null;
    }>;
    totalElements: number;
  };
};

/** A document.updated event of the workspace, as the document service would publish it. */
const docUpdate = (workspaceId: string, id: string, title: string, occurredAt?: string) =>
  publishEvent(stack.config, {
    type: 'document.updated',
    data: { id, workspaceId, title, plainText: 'secret body text', changed: ['title'] },
    occurredAt,
  });

const bodyOf = (r: { body: string }) => JSON.parse(r.body);

describe('webhook deliveries', () => {
  it('signs each body (the receiver verifies it) and sends ids and titles, never content', async () => {
    const hook = await hookedWorkspace(
      receiver.rule('/signed', () => 200),
      ['document.*'],
    );
    const doc = await createDocument(stack, owner, { workspaceId: hook.workspaceId, title: 'Launch plan' });
    const [got] = await eventually(() => {
      const all = receiver.at('/signed');
      expect(all).toHaveLength(1);
      return all;
    });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^Wiki-Webhooks\//);
    expect(got.headers['wiki-event']).toBe('document.created');
    const signature = String(got.headers['wiki-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(hook.secret, signature, got.body)).toBe(true);
    expect(verifySignature('another secret', signature, got.body)).toBe(false);
    expect(verifySignature(hook.secret, signature, got.body.replace('Launch', 'Lunch'))).toBe(false);
    const body = bodyOf(got);
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'id', 'occurredAt', 'workspaceId']);
    expect(body).toMatchObject({ event: 'document.created', workspaceId: hook.workspaceId });
    expect(body.data).toMatchObject({ id: doc.id, title: 'Launch plan' });
    expect(body.data.plainText).toBeUndefined();
    // The log names the delivery the header named.
    const log = await eventually(async () => {
      const l = await deliveries(hook);
      expect(l.content[0]?.status).toBe('delivered');
      return l;
    });
    expect(log.content[0]).toMatchObject({
      id: got.headers['wiki-delivery'],
      event: 'document.created',
      attempts: 1,
      responseStatus: 200,
    });
    expect(log.content[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(log.content[0].deliveredAt).not.toBeNull();
  });

  it('sends only the events a filter takes', async () => {
    const all = await hookedWorkspace(
      receiver.rule('/filter-all', () => 200),
      ['*'],
    );
    await addHook(
      all.workspaceId,
      receiver.rule('/filter-comments', () => 200),
      ['comment.added'],
    );
    const documentId = randomUUID();
    await docUpdate(all.workspaceId, documentId, 'Filtered');
    await publishEvent(stack.config, {
      type: 'comment.added',
      data: { workspaceId: all.workspaceId, documentId, text: 'private words' },
    });
    // `*` may also hear the workspace's member events, when they come after the webhook.
    await eventually(() =>
      expect(
        receiver
          .at('/filter-all')
          .map((r) => bodyOf(r).event)
          .filter((e) => /^(document|comment)\./.test(e)),
      ).toEqual(['document.updated', 'comment.added']),
    );
    await eventually(() => expect(receiver.at('/filter-comments')).toHaveLength(1));
    const comment = bodyOf(receiver.at('/filter-comments')[0]);
    expect(comment.event).toBe('comment.added');
    expect(JSON.stringify(comment)).not.toContain('private words');
  });

  it('retries after the receiver answers 500 twice, then 200: one delivery, three attempts', async () => {
    const hook = await hookedWorkspace(receiver.rule('/flaky', (n) => (n <= 2 ? 500 : 200)));
    await docUpdate(hook.workspaceId, randomUUID(), 'Retried');
    await eventually(() => expect(receiver.at('/flaky').map((r) => r.answered)).toEqual([500, 500, 200]));
    const tries = receiver.at('/flaky');
    expect(new Set(tries.map((r) => r.headers['wiki-delivery'])).size).toBe(1);
    expect(new Set(tries.map((r) => r.body)).size).toBe(1);
    for (const t of tries) expect(verifySignature(hook.secret, String(t.headers['wiki-signature']), t.body)).toBe(true);
    const log = await eventually(async () => {
      const l = await deliveries(hook);
      expect(l.content[0]).toMatchObject({ status: 'delivered', attempts: 3, responseStatus: 200 });
      return l;
    });
    expect(log.totalElements).toBe(1);
  });

  it('sends one webhook’s deliveries about one document in event order, a failed first one included', async () => {
    const hook = await hookedWorkspace(receiver.rule('/order', (n) => (n === 1 ? 503 : 200)));
    const documentId = randomUUID();
    const start = Date.now();
    for (let i = 1; i <= 4; i++) {
      await docUpdate(hook.workspaceId, documentId, `v${i}`, new Date(start + i).toISOString());
    }
    await eventually(() => expect(receiver.at('/order').filter((r) => r.answered === 200)).toHaveLength(4));
    const titles = receiver.at('/order').map((r) => `${bodyOf(r).data.title}:${r.answered}`);
    expect(titles).toEqual(['v1:503', 'v1:200', 'v2:200', 'v3:200', 'v4:200']);
  });

  it('stops sending once the webhook is deleted', async () => {
    const hook = await hookedWorkspace(receiver.rule('/deleted', () => 500));
    await docUpdate(hook.workspaceId, randomUUID(), 'Doomed');
    await eventually(() => expect(receiver.at('/deleted').length).toBeGreaterThanOrEqual(2));
    expect((await stack.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: admin.token })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 100)); // an attempt under way may still land
    const after = receiver.at('/deleted').length;
    await new Promise((r) => setTimeout(r, 1200)); // several retry intervals (50, 100, 200, 400 ms...)
    expect(receiver.at('/deleted').length).toBe(after);
  });

  it('keeps a log newest first, a page at a time, and redelivers a finished delivery (202; 409 while pending)', async () => {
    const hook = await hookedWorkspace(
      receiver.rule('/log', () => 200),
      ['document.updated'],
    );
    const start = Date.now();
    for (let i = 1; i <= 3; i++) {
      await docUpdate(hook.workspaceId, randomUUID(), `log ${i}`, new Date(start + i).toISOString());
    }
    await eventually(() => expect(receiver.at('/log')).toHaveLength(3));
    const page = await eventually(async () => {
      const p = await deliveries(hook, '?size=2');
      expect(p.content.every((d) => d.status === 'delivered')).toBe(true);
      return p;
    });
    expect(page.totalElements).toBe(3);
    expect(page.content).toHaveLength(2);
    const all = (await deliveries(hook)).content;
    expect(all.map((d) => d.createdAt)).toEqual([...all.map((d) => d.createdAt)].sort().reverse());
    const oldest = all[2];
    const firstBody = receiver.at('/log').find((r) => r.headers['wiki-delivery'] === oldest.id)?.body;
    expect(firstBody).toBeDefined();

    const again = await stack.request('POST', `/api/v1/webhooks/${hook.id}/deliveries/${oldest.id}/redeliver`, {
      token: admin.token,
    });
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ id: oldest.id, status: 'pending' });
    await eventually(() => expect(receiver.at('/log')).toHaveLength(4));
    const resent = receiver.at('/log')[3];
    expect(resent.headers['wiki-delivery']).toBe(oldest.id);
    expect(resent.body).toBe(firstBody);
    expect(verifySignature(hook.secret, String(resent.headers['wiki-signature']), resent.body)).toBe(true);
    await eventually(async () =>
      expect((await deliveries(hook)).content.find((d) => d.id === oldest.id)).toMatchObject({
        status: 'delivered',
        attempts: 2,
      }),
    );

    // A delivery still being retried is not redelivered; an unknown one is a 404; an editor is refused.
    const failing = await addHook(
      hook.workspaceId,
      receiver.rule('/log-failing', () => 500),
      ['document.updated'],
    );
    await docUpdate(hook.workspaceId, randomUUID(), 'still failing');
    const pending = await eventually(async () => {
      const d = (await deliveries(failing)).content[0];
      expect(d).toMatchObject({ status: 'pending' });
      return d;
    });
    const busy = await stack.request('POST', `/api/v1/webhooks/${failing.id}/deliveries/${pending.id}/redeliver`, {
      token: admin.token,
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error.reason).toBe('DELIVERY_PENDING');
    const unknown = `/api/v1/webhooks/${hook.id}/deliveries/${randomUUID()}/redeliver`;
    expect((await stack.request('POST', unknown, { token: admin.token })).status).toBe(404);
    const asEditor = `/api/v1/webhooks/${hook.id}/deliveries/${oldest.id}/redeliver`;
    expect((await stack.request('POST', asEditor, { token: editor.token })).status).toBe(403);
    await stack.request('DELETE', `/api/v1/webhooks/${failing.id}`, { token: admin.token });
  });

  it('makes one delivery of an event the stream delivers twice', async () => {
    const hook = await hookedWorkspace(
      receiver.rule('/twice', () => 200),
      ['document.updated'],
    );
    const event = testEvent('document.updated', {
      data: { id: randomUUID(), workspaceId: hook.workspaceId, title: 'Twice', plainText: '', changed: ['title'] },
    });
    // Published twice under different message ids, as a relay re-sending past the duplicate window would.
    const bus = await connectTestBus(stack.config);
    try {
      for (let i = 0; i < 2; i++) {
        await bus.js.publish(`${stack.config.eventsPrefix}.document.updated`, JSON.stringify(event), {
          msgID: randomUUID(),
        });
      }
    } finally {
      await bus.close();
    }
    await eventually(() => expect(receiver.at('/twice')).toHaveLength(1));
    // And applying it again by hand (another consumer's copy) adds no delivery either.
    expect(await pool.transaction((tx) => makeDeliveries(event, tx, { retryWindowMs: 60_000 }, null))).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/twice')).toHaveLength(1);
    expect((await deliveries(hook)).totalElements).toBe(1);
  });

  it('disables a webhook that failed for the whole period and tells the workspace’s ADMINs and OWNER', async () => {
    const hook = await hookedWorkspace(receiver.rule('/down', () => 500));
    await docUpdate(hook.workspaceId, randomUUID(), 'Into the void');
    await eventually(
      async () => {
        const res = await stack.request('GET', `/api/v1/webhooks/${hook.id}`, { token: admin.token });
        expect(res.body.data.enabled).toBe(false);
      },
      { timeoutMs: 20_000 },
    );
    for (const user of [owner, admin]) {
      const n = await awaitNotification(stack, user, 'WEBHOOK_DISABLED', (x) => x.workspace?.id === hook.workspaceId);
      expect(n.metadata).toEqual({ webhookId: hook.id });
      expect(n.message).toContain('disabled');
    }
    expect((await allOf(stack, editor)).filter((n) => n.type === 'WEBHOOK_DISABLED')).toEqual([]);
    await eventually(async () => expect((await deliveries(hook)).content[0].status).toBe('failed'));
    // Disabled: a new event makes no delivery.
    const before = receiver.at('/down').length;
    await docUpdate(hook.workspaceId, randomUUID(), 'Nobody listens');
    await new Promise((r) => setTimeout(r, 500));
    expect((await deliveries(hook)).totalElements).toBe(1);
    expect(receiver.at('/down').length).toBe(before);
  });

  it('counts a 3xx as a failure and does not follow it', async () => {
    const hook = await hookedWorkspace(receiver.rule('/moved', (n) => (n === 1 ? 302 : 200)));
    await docUpdate(hook.workspaceId, randomUUID(), 'Moved');
    await eventually(() => expect(receiver.at('/moved').map((r) => r.answered)).toEqual([302, 200]));
    expect(receiver.at('/moved/elsewhere')).toEqual([]);
    await eventually(async () =>
      expect((await deliveries(hook)).content[0]).toMatchObject({ status: 'delivered', attempts: 2 }),
    );
  });

  it('deletes a workspace’s webhooks and their logs when the workspace is deleted', async () => {
    const hook = await hookedWorkspace(receiver.rule('/gone-with-workspace', () => 500));
    const other = await hookedWorkspace(receiver.rule('/other-workspace', () => 200));
    await docUpdate(hook.workspaceId, randomUUID(), 'Before the end');
    await eventually(() => expect(receiver.at('/gone-with-workspace').length).toBeGreaterThan(0));
    const res = await stack.request('DELETE', `/api/v1/workspaces/${hook.workspaceId}`, { token: owner.token });
    expect(res.status).toBe(200);
    const count = (table: 'webhooks' | 'webhook_deliveries', column: 'id' | 'webhook_id', id: string) =>
      pool.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE ${sql.identifier([column])} = ${id}`);
    await eventually(async () => expect(await count('webhooks', 'id', hook.id)).toBe(0));
    expect(await count('webhook_deliveries', 'webhook_id', hook.id)).toBe(0);
    expect(await count('webhooks', 'id', other.id)).toBe(1);
  });

  it('re-queues a pending delivery whose job was lost, and only one that saw no attempt for a minute', async () => {
    const hook = await hookedWorkspace(
      receiver.rule('/swept', () => 200),
      ['document.updated'],
    );
    const event = (title: string) =>
      testEvent('document.updated', {
        data: { id: randomUUID(), workspaceId: hook.workspaceId, title, plainText: '', changed: ['title'] },
      });
    // Rows made without their jobs, as when a crash comes between the commit and the queueing.
    const make = (title: string) =>
      pool.transaction((tx) => makeDeliveries(event(title), tx, { retryWindowMs: 60_000 }, null));
    const [lost] = await make('lost');
    const [fresh] = await make('fresh');
    await pool.query(sql.unsafe`
      UPDATE webhook_deliveries SET created_at = now() - interval '2 minutes' WHERE id = ${lost.deliveryId}`);
    const prefix = queuePrefixOf(stack.config.dbPrefix);
    const queue = new WebhookQueue(stack.config.redisUrl, prefix);
    const jobs = new Queue(WEBHOOK_QUEUE, { connection: { url: stack.config.redisUrl }, prefix });
    try {
      // It sweeps once at start; stop() waits for that run.
      await (await startStaleDeliverySweep(pool, queue, recordingLogger())).stop();
      await eventually(() => expect(receiver.at('/swept').map((r) => bodyOf(r).data.title)).toEqual(['lost']));
      expect(receiver.at('/swept')[0].headers['wiki-delivery']).toBe(lost.deliveryId);
      // Not queued (a job done is removed, but then its row is no longer pending).
      expect(await jobs.getJob(`${fresh.deliveryId}_r0`)).toBeUndefined();
      expect((await deliveries(hook)).content.find((d) => d.id === fresh.deliveryId)?.status).toBe('pending');
    } finally {
      await jobs.close();
      await queue.close();
    }
  });
});
