import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { EVENT_MAX_IDS } from '@wiki/events';
import {
  type EventRecorder,
  eventually,
  publishEvent,
  recordEvents,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchor, type CommentStack, startCommentStack } from './helpers.js';

/**
 * Issue 11, point 1, for the comment service: its events stay bounded however many people write
 * in a thread, and its purge is right when one cascade arrives as several document.deleted events.
 */
let stack: CommentStack;
let rec: EventRecorder;
let db: DatabasePool; // the comment service's own database
let alice: SignedInUser; // OWNER
let carl: SignedInUser; // COMMENTER
let workspaceId: string;

beforeAll(async () => {
  stack = await startCommentStack();
  rec = await recordEvents(stack.config);
  db = await createDatabasePool(stack.config.databaseUrls.comment, { maximumPoolSize: 2 });
  [alice, carl] = await Promise.all(['Alice Owner', 'Carl Commenter'].map((name) => signInNew(stack, name)));
  workspaceId = (await workspaceWith(stack, alice, [[carl, 'COMMENTER']])).id;
});
afterAll(async () => {
  await rec?.close();
  await db?.end();
  await stack?.stop();
});

async function newThread(as: SignedInUser, documentId: string) {
  const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
    token: as.token,
    body: { anchor: anchor(), comment: { content: 'first' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string };
}

const threadCount = (ids: string[]) =>
  db.oneFirst(sql.unsafe`SELECT count(*)::int FROM comment_threads WHERE id = ANY(${sql.array(ids, 'uuid')})`);

describe('bounded comment events', () => {
  it('lists at most EVENT_MAX_IDS participants, creator first, and says when it left some out', async () => {
    const documentId = stack.docs.add({ workspaceId });
    const thread = await newThread(alice, documentId);
    // 1,100 earlier authors, straight into the service's table (as many members writing would).
    await db.query(sql.unsafe`
      INSERT INTO comments (id, thread_id, author_id, content, created_at)
      SELECT gen_random_uuid(), ${thread.id}, gen_random_uuid(), 'hello', now() + n * interval '1 microsecond'
      FROM generate_series(1, 1100) AS n`);

    const res = await stack.request('POST', `/api/v1/comments/threads/${thread.id}/comments`, {
      token: carl.token,
      body: { content: 'one more voice' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const added = await eventually(() => {
      const found = rec.ofType('comment.added').find((e) => e.data.commentId === res.body.data.id);
      if (!found) throw new Error('no comment.added yet');
      return found;
    });
    expect(added.data.participants).toHaveLength(EVENT_MAX_IDS);
    expect(added.data.participants[0]).toBe(alice.id);
    expect(new Set(added.data.participants).size).toBe(EVENT_MAX_IDS);
    expect(added.data.participantsTruncated).toBe(true);

    // A small thread lists everyone and has no flag.
    const small = await newThread(alice, stack.docs.add({ workspaceId }));
    const created = await eventually(() => {
      const found = rec.ofType('comment.thread_created').find((e) => e.data.threadId === small.id);
      if (!found) throw new Error('no comment.thread_created yet');
      return found;
    });
    expect(created.data.participants).toEqual([alice.id]);
    expect(created.data.participantsTruncated).toBeUndefined();
    expect(rec.contractViolations()).toEqual([]);
  });

  it('purges the threads of every part when a cascade arrives as several document.deleted events', async () => {
    const [root, a, b, kept] = [1, 2, 3, 4].map(() => stack.docs.add({ workspaceId }));
    const threads = [await newThread(alice, root), await newThread(carl, a), await newThread(alice, b)];
    const keptThread = await newThread(alice, kept);
    const ids = threads.map((th) => th.id);
    expect(await threadCount(ids)).toBe(3);
    for (const id of [root, a, b]) stack.docs.remove(id);

    // The document service's split: the same cascade in two parts, the second first.
    const base = { id: root, workspaceId, cascade: true, parts: 2 };
    await publishEvent(stack.config, { type: 'document.deleted', workspaceId, data: { ...base, ids: [b], part: 2 } });
    await eventually(async () => expect(await threadCount([threads[2].id])).toBe(0));
    expect(await threadCount(ids)).toBe(2);
    await publishEvent(stack.config, {
      type: 'document.deleted',
      workspaceId,
      data: { ...base, ids: [root, a], part: 1 },
    });
    await eventually(async () => expect(await threadCount(ids)).toBe(0));
    expect(await threadCount([keptThread.id])).toBe(1);
    const tombstones = await db.oneFirst(sql.unsafe`
      SELECT count(*)::int FROM document_projection
      WHERE id = ANY(${sql.array([root, a, b], 'uuid')}) AND deleted_at IS NOT NULL`);
    expect(tombstones).toBe(3);
  });
});
