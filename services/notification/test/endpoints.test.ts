import { randomUUID } from 'node:crypto';
import type { DatabasePool } from '@wiki/db';
import { createDatabasePool, sql } from '@wiki/db';
import { createServiceClient } from '@wiki/service-client';
import {
  connectTestBus,
  eventually,
  ISO_RE,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExpirySweeper, sweepExpired } from '../src/events/expiry-sweeper.js';
import { applyProducerEvent, type ProducerEvent } from '../src/events/producers.js';
import { allOf, listAs, type Notification, startNotificationStack } from './helpers.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
let stack: Stack;
let pool: DatabasePool;
let ada: SignedInUser;
let bob: SignedInUser;
let cy: SignedInUser;

beforeAll(async () => {
  stack = await startNotificationStack();
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  ada = await signInNew(stack, 'Ada Admin');
  bob = await signInNew(stack, 'Bob Reader');
  cy = await signInNew(stack, 'Cy Other');
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

const api = (method: string, path: string, as: SignedInUser) =>
  stack.request(method, `/api/v1/notifications${path}`, { token: as.token });

/** `n` MEMBER_ROLE_CHANGED notifications for `user` (one event each, made by Ada), oldest first. */
async function roleChanges(user: SignedInUser, n: number): Promise<Notification[]> {
  const workspaceId = randomUUID();
  const before = (await allOf(stack, user)).length;
  for (let i = 0; i < n; i++) {
    await publishEvent(stack.config, {
      type: 'member.role_changed',
      actorId: ada.id,
      data: { workspaceId, userId: user.id, memberId: randomUUID(), role: i % 2 ? 'EDITOR' : 'VIEWER' },
    });
  }
  return eventually(async () => {
    const all = (await allOf(stack, user)).filter((x) => x.workspace?.id === workspaceId);
    expect(all).toHaveLength(n);
    expect((await allOf(stack, user)).length).toBe(before + n);
    return all.reverse();
  });
}

const unreadCount = async (as: SignedInUser) => {
  const res = await api('GET', '/count', as);
  expect(res.status).toBe(200);
  return res.body.data.unreadCount as number;
};

describe('GET /notifications: Page<T>', () => {
  it('pages newest first by default, and sorts by createdAt or readAt either way', async () => {
    const dee = await signInNew(stack, 'Dee Pager');
    const made = await roleChanges(dee, 5);
    const first = await listAs(stack, dee, '?size=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ totalElements: 5, totalPages: 3, number: 0, size: 2 });
    expect(first.body.data.content.map((n) => n.id)).toEqual([made[4].id, made[3].id]);
    const last = await listAs(stack, dee, '?size=2&page=2');
    expect(last.body.data.content.map((n) => n.id)).toEqual([made[0].id]);
    const beyond = await listAs(stack, dee, '?size=2&page=3');
    expect(beyond.body.data).toMatchObject({ content: [], totalElements: 5, number: 3 });
    const asc = await listAs(stack, dee, '?sort=createdAt,ASC');
    expect(asc.body.data.content.map((n) => n.id)).toEqual(made.map((n) => n.id));
    const n = asc.body.data.content[0];
    expect(n.createdAt).toMatch(ISO_RE);
    expect(n).toMatchObject({ type: 'MEMBER_ROLE_CHANGED', status: 'UNREAD', readAt: null, actor: { id: ada.id } });

    // Read in the order 2, 0: readAt ASC lists them so, unread ones after.
    await api('POST', `/${made[2].id}/read`, dee);
    await api('POST', `/${made[0].id}/read`, dee);
    const byRead = await listAs(stack, dee, '?sort=readAt,ASC');
    expect(byRead.body.data.content.slice(0, 2).map((x) => x.id)).toEqual([made[2].id, made[0].id]);
    const byReadDesc = await listAs(stack, dee, '?sort=readAt,DESC');
    expect(byReadDesc.body.data.content.slice(0, 2).map((x) => x.id)).toEqual([made[0].id, made[2].id]);
  });

  it('refuses a page below 0, a size outside 1..100 and any other sort with a 400 in the error envelope', async () => {
    for (const query of [
      '?page=-1',
      '?size=0',
      '?size=101',
      '?size=abc',
      '?sort=title,ASC',
      '?sort=createdAt,UP',
      '?sort=createdAt',
    ]) {
      const res = await listAs(stack, bob, query);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    expect((await api('GET', '/unread?size=101', bob)).status).toBe(400);
    expect((await api('GET', '/type/MEMBER_REMOVED?size=0', bob)).status).toBe(400);
    expect((await api('GET', '/type/NOT_A_TYPE', bob)).status).toBe(400);
    expect((await listAs(stack, bob, '?size=100')).status).toBe(200);
  });

  it('needs a signed-in user', async () => {
    const res = await stack.request('GET', '/api/v1/notifications');
    expect(res.status).toBe(401);
  });
});

describe('states: UNREAD → READ → ACTIONED, DISMISSED, DELETE', () => {
  it('read sets readAt once, unread lists and the count follow, read-all answers markedCount', async () => {
    const [a, b, c] = await roleChanges(bob, 3);
    const before = await unreadCount(bob);
    const read = await api('POST', `/${a.id}/read`, bob);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: a.id, status: 'READ' });
    expect(read.body.data.readAt).toMatch(ISO_RE);
    const again = await api('POST', `/${a.id}/read`, bob);
    expect(again.body.data.readAt).toBe(read.body.data.readAt);
    expect(await unreadCount(bob)).toBe(before - 1);
    const unread = await api('GET', '/unread?size=100', bob);
    const ids = unread.body.data.content.map((n: Notification) => n.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(a.id);
    expect(unread.body.data.content.every((n: Notification) => n.status === 'UNREAD')).toBe(true);

    const actioned = await api('POST', `/${b.id}/actioned`, bob);
    expect(actioned.body.data).toMatchObject({ id: b.id, status: 'ACTIONED' });
    expect(actioned.body.data.readAt).toMatch(ISO_RE);
    // An actioned one stays actioned when marked read again.
    expect((await api('POST', `/${b.id}/read`, bob)).body.data.status).toBe('ACTIONED');

    const all = await api('POST', '/read-all', bob);
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({ markedCount: before - 2 });
    expect(await unreadCount(bob)).toBe(0);
    expect((await api('POST', '/read-all', bob)).body.data).toEqual({ markedCount: 0 });
    const cAfter = (await allOf(stack, bob)).find((n) => n.id === c.id);
    expect(cAfter?.status).toBe('READ');
    expect((await api('POST', `/${a.id}/read`, bob)).body.data.readAt).toBe(read.body.data.readAt);
  });

  it('dismiss hides from lists and counts (204), delete removes for good (204); both 404 afterwards', async () => {
    const [a, b] = await roleChanges(bob, 2);
    const count = await unreadCount(bob);
    const dismissed = await api('POST', `/${a.id}/dismiss`, bob);
    expect(dismissed.status).toBe(204);
    expect(await unreadCount(bob)).toBe(count - 1);
    expect((await allOf(stack, bob)).map((n) => n.id)).not.toContain(a.id);
    expect(
      (await api('GET', '/type/MEMBER_ROLE_CHANGED?size=100', bob)).body.data.content.map((n: Notification) => n.id),
    ).not.toContain(a.id);
    expect((await api('POST', `/${a.id}/read`, bob)).status).toBe(404);
    expect((await api('POST', `/${a.id}/dismiss`, bob)).status).toBe(404);

    expect((await api('DELETE', `/${b.id}`, bob)).status).toBe(204);
    expect((await allOf(stack, bob)).map((n) => n.id)).not.toContain(b.id);
    const gone = await api('DELETE', `/${b.id}`, bob);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notifications WHERE id = ${b.id}`)).toBe(0);
  });

  it('another user’s notification is a 404 for every operation and stays as it was', async () => {
    const [mine] = await roleChanges(bob, 1);
    for (const [method, path] of [
      ['POST', `/${mine.id}/read`],
      ['POST', `/${mine.id}/actioned`],
      ['POST', `/${mine.id}/dismiss`],
      ['DELETE', `/${mine.id}`],
    ] as const) {
      const res = await api(method, path, cy);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await api('POST', '/read-all', cy)).body.data.markedCount).toBe(0);
    expect((await allOf(stack, bob)).find((n) => n.id === mine.id)).toMatchObject({ status: 'UNREAD', readAt: null });
    expect((await allOf(stack, cy)).map((n) => n.id)).not.toContain(mine.id);
  });

  it('GET /type/{type} lists that type only', async () => {
    const eve = await signInNew(stack, 'Eve Typed');
    await roleChanges(eve, 2);
    await publishEvent(stack.config, {
      type: 'member.removed',
      actorId: ada.id,
      data: { workspaceId: randomUUID(), userId: eve.id, memberId: randomUUID(), role: 'VIEWER' },
    });
    await eventually(async () => expect(await allOf(stack, eve)).toHaveLength(3));
    const removed = await api('GET', '/type/MEMBER_REMOVED', eve);
    expect(removed.body.data).toMatchObject({ totalElements: 1, totalPages: 1, number: 0, size: 20 });
    expect(removed.body.data.content[0].type).toBe('MEMBER_REMOVED');
    expect((await api('GET', '/type/MEMBER_ROLE_CHANGED', eve)).body.data.totalElements).toBe(2);
    expect((await api('GET', '/type/COMMENT_MENTION', eve)).body.data.totalElements).toBe(0);
  });
});

describe('redelivery', () => {
  it('the same event published twice, or replayed past the consumer’s record, makes one notification', async () => {
    const fay = await signInNew(stack, 'Fay Once');
    const workspaceId = randomUUID();
    const event = await publishEvent(stack.config, {
      type: 'member.role_changed',
      actorId: ada.id,
      data: { workspaceId, userId: fay.id, memberId: randomUUID(), role: 'ADMIN' },
    });
    await eventually(async () => expect(await allOf(stack, fay)).toHaveLength(1));
    const bus = await connectTestBus(stack.config);
    try {
      await bus.publish(event);
    } finally {
      await bus.close();
    }
    // A replay the consumer has no record of (an older checkpoint): the handler itself, twice.
    const peers = createServiceClient({ config: stack.config, service: 'notification', logger: silent });
    for (let i = 0; i < 2; i++) {
      await pool.transaction((tx) => applyProducerEvent(event as ProducerEvent, tx, { peers, logger: silent }));
    }
    // A later event for Fay is handled after the copy: then she still has one of the first.
    await publishEvent(stack.config, {
      type: 'member.removed',
      actorId: ada.id,
      data: { workspaceId, userId: fay.id, memberId: randomUUID(), role: 'ADMIN' },
    });
    await eventually(async () => expect(await allOf(stack, fay)).toHaveLength(2));
    expect((await allOf(stack, fay)).filter((n) => n.type === 'MEMBER_ROLE_CHANGED')).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('an expired notification leaves lists and counts at once, and the sweep job deletes it', async () => {
    const gus = await signInNew(stack, 'Gus Expiring');
    const invitationId = randomUUID();
    await publishEvent(stack.config, {
      type: 'invitation.created',
      actorId: ada.id,
      data: {
        invitationId,
        email: gus.email,
        inviteeUserId: gus.id,
        invitedBy: ada.id,
        expiresAt: new Date(Date.now() - 60_000).toISOString(),
      },
    });
    await roleChanges(gus, 1); // handled after the invitation
    expect(
      await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notifications WHERE invitation_id = ${invitationId}`),
    ).toBe(1);
    expect((await allOf(stack, gus)).map((n) => n.type)).toEqual(['MEMBER_ROLE_CHANGED']);
    expect(await unreadCount(gus)).toBe(1);
    expect((await api('GET', '/type/WORKSPACE_INVITATION', gus)).body.data.totalElements).toBe(0);
    const [row] = await pool.anyFirst(sql.unsafe`SELECT id FROM notifications WHERE invitation_id = ${invitationId}`);
    expect((await api('POST', `/${row}/read`, gus)).status).toBe(404);

    const job = await startExpirySweeper(pool, silent, 50);
    try {
      await eventually(async () =>
        expect(
          await pool.oneFirst(
            sql.unsafe`SELECT count(*)::int FROM notifications WHERE invitation_id = ${invitationId}`,
          ),
        ).toBe(0),
      );
    } finally {
      await job.stop();
    }
    expect(await sweepExpired(pool)).toBe(0);
    expect(await unreadCount(gus)).toBe(1);
  });
});
