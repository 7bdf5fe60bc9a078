import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mintIdentityToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { connectEventBus, type EventBus } from '@wiki/events';
import {
  connectTestBus,
  eventually,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { sweepExpired } from '../src/events/expiry-sweeper.js';
import { userLiveSubject } from '../src/live/streams.js';
import { allOf, awaitNotification, type Notification, startNotificationStack } from './helpers.js';
import { type SseEvent, SseStream } from './sse.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
let stack: Stack;
let bus: EventBus;
let ada: SignedInUser;

beforeAll(async () => {
  // A short heartbeat, so that a test sees one; one user may hold the 140 streams of the gateway
  // pool test (the per-user limit has tests of its own: stream-limit.test.ts).
  stack = await startNotificationStack({ NOTIFICATION_HEARTBEAT_MS: '200', NOTIFICATION_STREAMS_PER_USER: '200' });
  bus = await connectTestBus(stack.config);
  ada = await signInNew(stack, 'Ada Admin');
});
afterAll(async () => {
  await bus?.close();
  await stack?.stop();
});

const STREAM = '/api/v1/notifications/stream';
const open = (user: SignedInUser, headers: Record<string, string> = {}, query = '') =>
  SseStream.open(`${stack.gatewayUrl}${STREAM}${query}`, { authorization: `Bearer ${user.token}`, ...headers });

/** Makes one MEMBER_ROLE_CHANGED notification for `user` (an event from Ada, as the workspace service sends). */
async function notifyOnce(user: SignedInUser, workspaceId = randomUUID()): Promise<string> {
  await publishEvent(bus, {
    type: 'member.role_changed',
    actorId: ada.id,
    data: { workspaceId, userId: user.id, memberId: randomUUID(), role: 'EDITOR' },
  });
  return workspaceId;
}

const notificationsOf = (stream: SseStream, from = 0) =>
  stream.events.slice(from).filter((e) => e.event === 'notification');
const payload = (e: SseEvent) => JSON.parse(e.data ?? 'null') as Notification;
const countOf = (e: SseEvent) => (JSON.parse(e.data ?? 'null') as { unreadCount: number }).unreadCount;

/** Streams the stack's notification service holds open (its readiness details). */
async function openOnService(): Promise<number | undefined> {
  const res = await fetch(`${stack.serviceUrls.notification}/health/ready`);
  return ((await res.json()) as { details?: { streams?: { open: number } } }).details?.streams?.open;
}

/** Waits for the notification about `workspaceId` on the stream and answers its event. */
const arrival = (stream: SseStream, workspaceId: string) =>
  stream.next((e) => e.event === 'notification' && payload(e).workspace?.id === workspaceId);

describe('GET /notifications/stream through the gateway', () => {
  it('is an unbuffered event stream that starts with the unread count; a caller without a token gets 401', async () => {
    const dee = await signInNew(stack, 'Dee Streamer');
    const stream = await open(dee);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.headers['cache-control']).toBe('no-cache');
      expect(stream.headers['x-accel-buffering']).toBe('no');
      expect(stream.headers['x-request-id']).toBeTruthy();
      const first = await stream.next((e) => e.event !== undefined);
      expect(first).toMatchObject({ event: 'unread-count', id: '0' });
      expect(countOf(first)).toBe(0);
    } finally {
      stream.close();
    }
    const anonymous = await fetch(`${stack.gatewayUrl}${STREAM}`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });

  it('sends each new notification in order, with increasing ids, and the count after it', async () => {
    const eve = await signInNew(stack, 'Eve Ordered');
    const stream = await open(eve);
    try {
      await stream.count(0);
      const workspaces: string[] = [];
      for (let i = 0; i < 3; i++) workspaces.push(await notifyOnce(eve));
      await arrival(stream, workspaces[2]);
      await stream.count(3);
      const sent = notificationsOf(stream);
      expect(sent.map((e) => payload(e).workspace?.id)).toEqual(workspaces);
      const ids = sent.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(3);
      // The same notifications the list shows (whose order ties when one transaction made several).
      const listed = await allOf(stack, eve);
      expect(sent.map((e) => payload(e).id).sort()).toEqual(listed.map((n) => n.id).sort());
      expect(payload(sent[0])).toMatchObject({
        type: 'MEMBER_ROLE_CHANGED',
        status: 'UNREAD',
        actor: { id: ada.id, name: 'Ada Admin' },
      });
      // Counts only ever went up here, and every count event carries an id.
      const counts = stream.named('unread-count');
      expect(counts.map(countOf)).toEqual([...counts.map(countOf)].sort((a, b) => a - b));
      for (const e of counts) expect(e.id).toMatch(/^\d+$/);
    } finally {
      stream.close();
    }
  });

  it('fixes where a new stream starts before its answer begins: a notification made once the client holds it is sent on it', async () => {
    const kai = await signInNew(stack, 'Kai Early');
    // Holding the table the starting point is read from: a stream that answered before reading it
    // would start "from now" at whatever was last when the read got through, after the client
    // had made notifications it then never receives.
    const pool = await createDatabasePool(stack.config.databaseUrls.notification);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`LOCK TABLE notification_streams IN ACCESS EXCLUSIVE MODE`);
      locked();
      await held;
    });
    let stream: SseStream | undefined;
    try {
      await lockTaken;
      let answered = false;
      const opening = open(kai).then((s) => {
        answered = true;
        stream = s;
        return s;
      });
      // Long enough for an answer that does not wait on the read to arrive (it takes milliseconds).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(answered).toBe(false);
      release();
      await holder;
      const opened = await opening;
      const workspaceId = await notifyOnce(kai);
      await arrival(opened, workspaceId);
      expect(notificationsOf(opened)).toHaveLength(1);
    } finally {
      release();
      await holder.catch(() => undefined);
      stream?.close();
      await pool.end();
    }
  });

  it('sends the count after read, dismiss, delete and read-all', async () => {
    const fay = await signInNew(stack, 'Fay Counter');
    const stream = await open(fay);
    try {
      const workspaces: string[] = [];
      for (let i = 0; i < 5; i++) workspaces.push(await notifyOnce(fay));
      await stream.count(5);
      const [n1, n2, n3] = notificationsOf(stream).map(payload);
      const api = (method: string, path: string) =>
        stack.request(method, `/api/v1/notifications${path}`, { token: fay.token });

      let mark = stream.events.length;
      expect((await api('POST', `/${n1.id}/read`)).status).toBe(200);
      expect(countOf(await stream.count(4, mark))).toBe(4);

      mark = stream.events.length;
      expect((await api('POST', `/${n2.id}/dismiss`)).status).toBe(204);
      await stream.count(3, mark);

      mark = stream.events.length;
      expect((await api('DELETE', `/${n3.id}`)).status).toBe(204);
      await stream.count(2, mark);

      mark = stream.events.length;
      const all = await api('POST', '/read-all');
      expect(all.body.data.markedCount).toBe(2);
      await stream.count(0, mark);

      // A change to another user's notification (a 404) tells this stream nothing new.
      const other = await signInNew(stack, 'Gus Other');
      mark = stream.events.length;
      expect((await stack.request('POST', `/api/v1/notifications/${n1.id}/read`, { token: other.token })).status).toBe(
        404,
      );
      await notifyOnce(fay);
      await stream.count(1, mark);
      expect(
        stream.events
          .slice(mark)
          .filter((e) => e.event === 'unread-count')
          .map(countOf),
      ).toEqual([1]);
    } finally {
      stream.close();
    }
  });

  it('sends the count when an invitation is cancelled, a document deleted, or a notification expires', async () => {
    const pat = await signInNew(stack, 'Pat Events');
    const stream = await open(pat);
    try {
      await stream.count(0);
      const invitationId = randomUUID();
      const invitation = { invitationId, email: pat.email, inviteeUserId: pat.id, invitedBy: ada.id };
      await publishEvent(bus, { type: 'invitation.created', actorId: ada.id, data: invitation });
      await stream.count(1);
      let mark = stream.events.length;
      await publishEvent(bus, { type: 'invitation.cancelled', actorId: ada.id, data: invitation });
      await stream.count(0, mark);

      // A mention about a document that is then deleted (the comment event as the comment service sends it).
      const workspace = await workspaceWith(stack, ada, [[pat, 'COMMENTER']]);
      // Joining made an invitation notification, answered at once: the stream has shown it and
      // counts 0 again before the mark, so that the count after the mark is the mention's.
      await awaitNotification(
        stack,
        pat,
        'WORKSPACE_INVITATION',
        (n) => n.workspace?.id === workspace.id && n.status === 'ACTIONED',
      );
      await arrival(stream, workspace.id);
      await eventually(async () => expect(stream.named('unread-count').map(countOf).at(-1)).toBe(0));
      const documentId = randomUUID();
      // The mark comes before the event: its count may arrive before publishEvent returns.
      mark = stream.events.length;
      await publishEvent(bus, {
        type: 'comment.added',
        actorId: ada.id,
        data: { workspaceId: workspace.id, documentId, authorId: ada.id, threadCreatedBy: ada.id, mentions: [pat.id] },
      });
      await stream.count(1, mark);
      mark = stream.events.length;
      await publishEvent(bus, { type: 'document.deleted', data: { id: documentId, ids: [documentId] } });
      await stream.count(0, mark);

      // Expiry: the count fell when the notification expired; the sweep that deletes it tells the stream.
      await notifyOnce(pat);
      await stream.count(1, mark);
      const pool = await createDatabasePool(stack.config.databaseUrls.notification);
      try {
        await pool.query(sql.unsafe`
          UPDATE notifications SET expires_at = now() - interval '1 second' WHERE user_id = ${pat.id}`);
        mark = stream.events.length;
        const deleted = await sweepExpired(pool, (userIds) => {
          for (const id of userIds) bus.nc.publish(userLiveSubject(bus.prefix, id));
        });
        expect(deleted).toBeGreaterThanOrEqual(1);
        await stream.count(0, mark);
      } finally {
        await pool.end();
      }
    } finally {
      stream.close();
    }
  });

  it('resumes from Last-Event-ID (header or lastEventId) with exactly what was missed, then the count', async () => {
    const hal = await signInNew(stack, 'Hal Reconnect');
    const first = await open(hal);
    const before = [await notifyOnce(hal), await notifyOnce(hal)];
    await arrival(first, before[1]);
    const seen = notificationsOf(first);
    first.close();
    await first.endedByServer();

    const missed = [await notifyOnce(hal), await notifyOnce(hal)];
    await eventually(async () => expect((await allOf(stack, hal)).length).toBe(4));

    const resumed = await open(hal, { 'last-event-id': seen[1].id! });
    try {
      await resumed.count(4);
      const got = notificationsOf(resumed);
      expect(got.map((e) => payload(e).workspace?.id)).toEqual(missed);
      // The count comes after the missed ones, with the id of the last of them.
      const count = resumed.named('unread-count')[0];
      expect(resumed.events.indexOf(count)).toBeGreaterThan(resumed.events.indexOf(got[1]));
      expect(count.id).toBe(got[1].id);
    } finally {
      resumed.close();
    }

    const byQuery = await open(hal, {}, `?lastEventId=${seen[0].id}`);
    try {
      await byQuery.count(4);
      expect(notificationsOf(byQuery).map((e) => payload(e).workspace?.id)).toEqual([before[1], ...missed]);
    } finally {
      byQuery.close();
    }

    // Up to date already: only the count.
    const current = await open(hal, { 'last-event-id': resumed.named('unread-count')[0].id! });
    try {
      await current.count(4);
      expect(notificationsOf(current)).toEqual([]);
    } finally {
      current.close();
    }
  });

  it('sends a catch-up in number order across a change of digits (9 → 10), each once', async () => {
    const tim = await signInNew(stack, 'Tim Twelve');
    for (let i = 0; i < 12; i++) await notifyOnce(tim);
    await eventually(async () => expect((await allOf(stack, tim)).length).toBe(12));
    const stream = await open(tim, { 'last-event-id': '0' });
    try {
      await stream.count(12);
      const ids = notificationsOf(stream).map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(notificationsOf(stream).map((e) => payload(e).id)).size).toBe(ids.length);
      expect(ids).toHaveLength(12);
    } finally {
      stream.close();
    }
  });

  it('refuses a malformed Last-Event-ID with a 400 envelope', async () => {
    for (const [headers, query] of [
      [{ 'last-event-id': 'abc' }, ''],
      [{}, '?lastEventId=-1'],
      [{ 'last-event-id': '1'.repeat(30) }, ''],
    ] as const) {
      const res = await fetch(`${stack.gatewayUrl}${STREAM}${query}`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${ada.token}`, ...headers },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });

  it('sends a heartbeat comment while nothing happens', async () => {
    const ivy = await signInNew(stack, 'Ivy Quiet');
    const stream = await open(ivy);
    try {
      const beat = await stream.next((e) => e.comment === 'heartbeat');
      expect(beat.event).toBeUndefined();
    } finally {
      stream.close();
    }
  });

  it('closes the service’s stream when the client goes away (the gateway ends the upstream request)', async () => {
    const jay = await signInNew(stack, 'Jay Leaver');
    expect(await openOnService()).toBe(0);
    const streams = [await open(jay), await open(jay)];
    await Promise.all(streams.map((s) => s.count(0)));
    expect(await openOnService()).toBe(2);
    streams[0].close();
    await eventually(async () => expect(await openOnService()).toBe(1));
    streams[1].close();
    await eventually(async () => expect(await openOnService()).toBe(0));
  });

  it('holds more streams than the gateway’s pooled connections to a service, and other requests still pass', async () => {
    // 128 pooled connections per service: streams must not take them (gateway/src/event-streams.ts).
    const kay = await signInNew(stack, 'Kay Many Tabs');
    const streams = await Promise.all(Array.from({ length: 140 }, () => open(kay)));
    try {
      await Promise.all(streams.map((s) => s.count(0)));
      const count = await stack.request('GET', '/api/v1/notifications/count', { token: kay.token });
      expect(count.status).toBe(200);
      const workspaceId = await notifyOnce(kay);
      await Promise.all(streams.map((s) => arrival(s, workspaceId)));
    } finally {
      for (const s of streams) s.close();
    }
    await eventually(async () => expect(await openOnService()).toBe(0));
  });
});

describe('two replicas of the service on one database', () => {
  let replicaB: FastifyInstance;
  let pool: DatabasePool;
  let busB: EventBus;
  let fanOut: { stop(): Promise<void> };
  let urlB: string;

  beforeAll(async () => {
    // Replica B serves streams and commands but runs no event consumer: every notification is
    // made by replica A (the stack's, behind the gateway), so B's clients hear of it only
    // through the fan-out.
    pool = await createDatabasePool(stack.config.databaseUrls.notification);
    replicaB = await buildApp(stack.config, { pool, logLevel: 'silent' });
    busB = await connectEventBus({
      natsUrl: stack.config.natsUrl,
      stream: stack.config.eventsStream,
      prefix: stack.config.eventsPrefix,
      name: 'notification-b',
      logger: silent,
    });
    fanOut = replicaB.notificationStreams.connect(busB);
    await busB.nc.flush();
    await replicaB.listen({ port: 0, host: '127.0.0.1' });
    urlB = `http://127.0.0.1:${(replicaB.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await fanOut?.stop();
    await replicaB?.close();
    await busB?.close();
    await pool?.end();
  });

  const openOnB = async (user: SignedInUser, headers: Record<string, string> = {}) => {
    const identity = await mintIdentityToken(stack.config.internalTokenSecret, {
      kind: 'user',
      userId: user.id,
      email: user.email,
      name: user.name,
    });
    return SseStream.open(`${urlB}${STREAM}`, { 'x-wiki-identity': identity, ...headers });
  };

  it('a client on replica B receives what replica A made, and the counts of A’s commands', async () => {
    const kim = await signInNew(stack, 'Kim Replica');
    const onB = await openOnB(kim);
    const onA = await open(kim);
    try {
      await Promise.all([onB.count(0), onA.count(0)]);
      const workspaces = [await notifyOnce(kim), await notifyOnce(kim)];
      await arrival(onB, workspaces[1]);
      await onB.count(2);
      expect(notificationsOf(onB).map((e) => payload(e).workspace?.id)).toEqual(workspaces);
      await arrival(onA, workspaces[1]);
      expect(notificationsOf(onB).map((e) => e.id)).toEqual(notificationsOf(onA).map((e) => e.id));

      // A read through the gateway (replica A) changes the count on B's stream.
      const mark = onB.events.length;
      const first = payload(notificationsOf(onB)[0]);
      expect((await stack.request('POST', `/api/v1/notifications/${first.id}/read`, { token: kim.token })).status).toBe(
        200,
      );
      await onB.count(1, mark);

      // And a read on replica B reaches the client on A.
      const markA = onA.events.length;
      const identity = await mintIdentityToken(stack.config.internalTokenSecret, {
        kind: 'user',
        userId: kim.id,
        email: kim.email,
        name: kim.name,
      });
      const second = payload(notificationsOf(onB)[1]);
      const read = await fetch(`${urlB}/api/v1/notifications/${second.id}/read`, {
        method: 'POST',
        headers: { 'x-wiki-identity': identity },
      });
      expect(read.status).toBe(200);
      await onA.count(0, markA);
    } finally {
      onB.close();
      onA.close();
    }
  });

  it('replica B resumes from a Last-Event-ID that replica A gave out', async () => {
    const lou = await signInNew(stack, 'Lou Failover');
    const onA = await open(lou);
    const first = await notifyOnce(lou);
    const lastSeen = (await arrival(onA, first)).id!;
    onA.close();
    const missed = await notifyOnce(lou);
    await awaitNotification(stack, lou, 'MEMBER_ROLE_CHANGED', (n) => n.workspace?.id === missed);
    const onB = await openOnB(lou, { 'last-event-id': lastSeen });
    try {
      await onB.count(2);
      expect(notificationsOf(onB).map((e) => payload(e).workspace?.id)).toEqual([missed]);
    } finally {
      onB.close();
    }
  });

  // Last in this group: it stops replica B.
  it('a stopping replica tells its streams to reconnect soon; the client resumes on the other with Last-Event-ID', async () => {
    const rae = await signInNew(stack, 'Rae Rolling');
    const onB = await openOnB(rae);
    const first = await notifyOnce(rae);
    const lastSeen = (await arrival(onB, first)).id!;
    const stopping = replicaB.close();
    await onB.endedByServer();
    await stopping;
    const last = onB.events.at(-1);
    expect(last).toMatchObject({ event: 'reconnect', retry: 1000 });
    const missed = await notifyOnce(rae);
    await awaitNotification(stack, rae, 'MEMBER_ROLE_CHANGED', (n) => n.workspace?.id === missed);
    const onA = await open(rae, { 'last-event-id': lastSeen });
    try {
      await onA.count(2);
      expect(notificationsOf(onA).map((e) => payload(e).workspace?.id)).toEqual([missed]);
    } finally {
      onA.close();
    }
  });
});

describe('participantsTruncated', () => {
  it('reply and resolve notifications go to the participants the event lists, not to members it left out', async () => {
    const [max, ned, oz] = [
      await signInNew(stack, 'Max Author'),
      await signInNew(stack, 'Ned Listed'),
      await signInNew(stack, 'Oz Unlisted'),
    ];
    const workspace = await workspaceWith(stack, max, [
      [ned, 'COMMENTER'],
      [oz, 'COMMENTER'],
    ]);
    const event = await publishEvent(bus, {
      type: 'comment.added',
      actorId: max.id,
      data: {
        workspaceId: workspace.id,
        authorId: max.id,
        threadCreatedBy: max.id,
        participants: [max.id, ned.id],
        participantsTruncated: true,
      },
    });
    await awaitNotification(stack, ned, 'COMMENT_REPLY', (n) => n.metadata.commentId === event.data.commentId);
    // Oz's would have been made in the same transaction as Ned's.
    expect((await allOf(stack, oz)).filter((n) => n.type === 'COMMENT_REPLY')).toEqual([]);

    const resolved = await publishEvent(bus, {
      type: 'comment.thread_resolved',
      actorId: max.id,
      data: {
        workspaceId: workspace.id,
        status: 'resolved',
        createdBy: max.id,
        resolvedBy: max.id,
        participants: [max.id, ned.id],
        participantsTruncated: true,
      },
    });
    await awaitNotification(
      stack,
      ned,
      'THREAD_RESOLVED',
      (n) => n.references.commentThreadId === resolved.data.threadId,
    );
    expect((await allOf(stack, oz)).filter((n) => n.type === 'THREAD_RESOLVED')).toEqual([]);
  });
});
