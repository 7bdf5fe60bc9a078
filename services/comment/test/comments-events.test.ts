import { randomUUID } from 'node:crypto';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import {
  addMember,
  createWorkspace,
  type EventRecorder,
  eventually,
  publishEvent,
  recordEvents,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchor, type CommentStack, mention, startCommentStack } from './helpers.js';

let stack: CommentStack;
let rec: EventRecorder;
let db: DatabasePool; // the comment service's own database, to look behind the API
let alice: SignedInUser; // OWNER
let carl: SignedInUser; // COMMENTER
let cleo: SignedInUser; // COMMENTER
let vera: SignedInUser; // VIEWER
let sam: SignedInUser; // not a member
let workspaceId: string;
let documentId: string;

beforeAll(async () => {
  stack = await startCommentStack();
  rec = await recordEvents(stack.config);
  db = await createDatabasePool(stack.config.databaseUrls.comment);
  [alice, carl, cleo, vera, sam] = await Promise.all(
    ['Alice Owner', 'Carl Commenter', 'Cleo Commenter', 'Vera Viewer', 'Sam Stranger'].map((name) =>
      signInNew(stack, name),
    ),
  );
  const workspace = await workspaceWith(stack, alice, [
    [carl, 'COMMENTER'],
    [cleo, 'COMMENTER'],
    [vera, 'VIEWER'],
  ]);
  workspaceId = workspace.id;
  documentId = stack.docs.add({ workspaceId });
});
afterAll(async () => {
  await rec?.close();
  await db?.end();
  await stack?.stop();
});

async function newThread(as: SignedInUser, content: string, docId = documentId) {
  const res = await stack.request('POST', `/api/v1/comments/documents/${docId}/threads`, {
    token: as.token,
    body: { anchor: anchor(), comment: { content } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function reply(as: SignedInUser, threadId: string, content: string) {
  const res = await stack.request('POST', `/api/v1/comments/threads/${threadId}/comments`, {
    token: as.token,
    body: { content },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The one event of `type` about `key` (threadId or commentId) once it has arrived. */
function eventAbout(type: string, key: { threadId?: string; commentId?: string }) {
  return eventually(() => {
    const found = rec
      .ofType(type)
      .filter(
        (e) =>
          (!key.threadId || e.data.threadId === key.threadId) && (!key.commentId || e.data.commentId === key.commentId),
      );
    expect(found).toHaveLength(1);
    return found[0];
  });
}

const listThreads = (as: SignedInUser, docId = documentId) =>
  stack.request('GET', `/api/v1/comments/documents/${docId}/threads`, { token: as.token });

describe('events and mentions', () => {
  it('announces a new thread and its first comment, with the mentioned members', async () => {
    const content = [
      `Hey ${mention(cleo)} and ${mention(vera)},`, // members: mentioned
      `not ${mention(sam)},`, // not a member: dropped
      `not me ${mention(carl)},`, // the author: dropped
      `again ${mention(cleo)}`, // duplicate: once
      `broken @[Alice](${alice.id}`, // missing parenthesis
      `@[Alice](not-a-uuid) @[Al [ice]](${alice.id}) \\@[Alice](${alice.id})`, // non-UUID, nested, escaped
    ].join(' ');
    const thread = await newThread(carl, content);
    const created = await eventAbout('comment.thread_created', { threadId: thread.id });
    expect(created).toMatchObject({
      workspaceId,
      actorId: carl.id,
      data: { threadId: thread.id, documentId, workspaceId, status: 'open', participants: [carl.id] },
    });
    const added = await eventAbout('comment.added', { commentId: thread.comments[0].id });
    expect(added).toMatchObject({
      workspaceId,
      actorId: carl.id,
      data: {
        commentId: thread.comments[0].id,
        threadId: thread.id,
        documentId,
        workspaceId,
        authorId: carl.id,
        participants: [carl.id],
      },
    });
    expect(added.data.mentions).toEqual([cleo.id, vera.id]);
  });

  it('lists every participant on replies and mentions only members', async () => {
    const thread = await newThread(carl, 'Start');
    const first = await reply(cleo, thread.id, `Over to ${mention(alice)} (and ${mention(sam)})`);
    const second = await reply(alice, thread.id, `Thanks ${mention(cleo)}, ${mention(alice)}`);
    const third = await reply(cleo, thread.id, 'Again');
    expect((await eventAbout('comment.added', { commentId: first.id })).data).toMatchObject({
      authorId: cleo.id,
      mentions: [alice.id],
      participants: [carl.id, cleo.id],
    });
    expect((await eventAbout('comment.added', { commentId: second.id })).data).toMatchObject({
      authorId: alice.id,
      mentions: [cleo.id],
      participants: [carl.id, cleo.id, alice.id],
    });
    expect((await eventAbout('comment.added', { commentId: third.id })).data).toMatchObject({
      mentions: [],
      participants: [carl.id, cleo.id, alice.id],
    });
  });

  it('mentions a user who joined a moment ago (membership read-through)', async () => {
    const newcomer = await signInNew(stack, 'Nina Newcomer');
    await addMember(stack, workspaceId, alice, newcomer, 'VIEWER');
    const thread = await newThread(carl, `Welcome ${mention(newcomer)}`);
    expect((await eventAbout('comment.added', { commentId: thread.comments[0].id })).data.mentions).toEqual([
      newcomer.id,
    ]);
  });

  it('carries all mentions and the newly added ones on comment.edited', async () => {
    const thread = await newThread(carl, `Ask ${mention(cleo)}`);
    const commentId = thread.comments[0].id;
    const res = await stack.request('PUT', `/api/v1/comments/${commentId}`, {
      token: carl.token,
      body: { content: `Ask ${mention(cleo)} or ${mention(vera)} or ${mention(sam)}` },
    });
    expect(res.status).toBe(200);
    const edited = await eventAbout('comment.edited', { commentId });
    expect(edited).toMatchObject({
      actorId: carl.id,
      data: {
        commentId,
        threadId: thread.id,
        documentId,
        workspaceId,
        authorId: carl.id,
        mentions: [cleo.id, vera.id],
        newMentions: [vera.id],
        participants: [carl.id],
      },
    });
  });

  it('announces resolve, reopen and deletions with the thread status and participants', async () => {
    const thread = await newThread(carl, 'Topic');
    const r = await reply(cleo, thread.id, 'Reply');
    await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/resolve`, { token: cleo.token });
    const resolved = await eventAbout('comment.thread_resolved', { threadId: thread.id });
    expect(resolved).toMatchObject({
      actorId: cleo.id,
      data: { threadId: thread.id, documentId, workspaceId, status: 'resolved', participants: [carl.id, cleo.id] },
    });

    await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/reopen`, { token: alice.token });
    expect((await eventAbout('comment.thread_reopened', { threadId: thread.id })).data).toMatchObject({
      status: 'open',
      participants: [carl.id, cleo.id],
    });

    await stack.request('DELETE', `/api/v1/comments/${r.id}`, { token: cleo.token });
    expect((await eventAbout('comment.deleted', { commentId: r.id })).data).toMatchObject({
      threadId: thread.id,
      authorId: cleo.id,
      mentions: [],
      participants: [carl.id],
    });

    await stack.request('DELETE', `/api/v1/comments/threads/${thread.id}`, { token: carl.token });
    expect((await eventAbout('comment.thread_deleted', { threadId: thread.id })).data).toMatchObject({
      documentId,
      workspaceId,
      status: 'open',
      participants: [carl.id],
    });
  });

  it('announces the thread deletion that deleting its last comment causes', async () => {
    const thread = await newThread(carl, 'Lonely');
    await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/resolve`, { token: carl.token });
    await stack.request('DELETE', `/api/v1/comments/${thread.comments[0].id}`, { token: carl.token });
    expect((await eventAbout('comment.deleted', { commentId: thread.comments[0].id })).data.threadId).toBe(thread.id);
    expect((await eventAbout('comment.thread_deleted', { threadId: thread.id })).data.status).toBe('resolved');
  });

  it('writes no event for a refused request', async () => {
    const thread = await newThread(carl, 'Mine');
    const refused = await stack.request('PUT', `/api/v1/comments/${thread.comments[0].id}`, {
      token: cleo.token,
      body: { content: 'x' },
    });
    expect(refused.status).toBe(403);
    const pending = await db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM event_outbox WHERE type = 'comment.edited' AND envelope->'data'->>'commentId' = ${thread.comments[0].id}`,
    );
    expect(pending).toBe(0);
  });
});

describe('document projection', () => {
  it('knows documents from document.created without asking the document service', async () => {
    const id = randomUUID(); // the fake document service has never heard of it
    await publishEvent(stack.config, {
      type: 'document.created',
      workspaceId,
      data: { id, workspaceId, parentId: null, title: 'From an event' },
    });
    // Wait for the projection itself: a request made before the event is applied would (rightly) ask.
    await eventually(async () =>
      expect(await db.exists(sql.unsafe`SELECT 1 FROM document_projection WHERE id = ${id}`)).toBe(true),
    );
    expect((await listThreads(vera, id)).status).toBe(200);
    await newThread(carl, 'On an evented document', id);
    expect(stack.docs.lookups).not.toContain(id);
  });

  it('leaves edits of a document alone: no projection row, no inbox row, for a document.updated', async () => {
    const edited = randomUUID();
    const updated = await publishEvent(stack.config, {
      type: 'document.updated',
      workspaceId,
      data: { id: edited, workspaceId, parentId: null, title: 'Retitled', changed: ['title'] },
    });
    // Events reach the consumer in stream order: once this one is applied, the edit has been handled.
    const barrier = randomUUID();
    await publishEvent(stack.config, {
      type: 'document.created',
      workspaceId,
      data: { id: barrier, workspaceId, parentId: null, title: 'After the edit' },
    });
    await eventually(async () =>
      expect(await db.exists(sql.unsafe`SELECT 1 FROM document_projection WHERE id = ${barrier}`)).toBe(true),
    );
    expect(await db.exists(sql.unsafe`SELECT 1 FROM document_projection WHERE id = ${edited}`)).toBe(false);
    expect(await db.exists(sql.unsafe`SELECT 1 FROM event_consumed WHERE event_id = ${updated.id}`)).toBe(false);
  });

  it('deletes the threads (and comments) of deleted documents, cascades included', async () => {
    const parent = stack.docs.add({ workspaceId });
    const child = stack.docs.add({ workspaceId });
    const kept = stack.docs.add({ workspaceId });
    const onParent = await newThread(carl, 'parent');
    const p = await newThread(carl, 'on parent', parent);
    await reply(cleo, p.id, 'reply on parent');
    const c = await newThread(cleo, 'on child', child);
    const k = await newThread(cleo, 'on kept', kept);
    void onParent;

    stack.docs.remove(parent);
    stack.docs.remove(child);
    await publishEvent(stack.config, {
      type: 'document.deleted',
      workspaceId,
      data: { id: parent, ids: [parent, child], workspaceId },
    });
    await eventually(async () => expect((await listThreads(alice, parent)).status).toBe(404));
    expect((await listThreads(alice, child)).status).toBe(404);
    expect(
      (await stack.request('PUT', `/api/v1/comments/threads/${c.id}/resolve`, { token: alice.token })).status,
    ).toBe(404);
    expect(
      (
        await stack.request('POST', `/api/v1/comments/threads/${p.id}/comments`, {
          token: alice.token,
          body: { content: 'x' },
        })
      ).status,
    ).toBe(404);
    const left = await db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM comments WHERE thread_id = ANY(${sql.array([p.id, c.id], 'uuid')})`,
    );
    expect(left).toBe(0);
    // Other documents keep theirs.
    expect((await listThreads(alice, kept)).body.data.map((t: any) => t.id)).toEqual([k.id]);
  });

  it('does not bring a deleted document back from a stale look-up', async () => {
    const id = stack.docs.add({ workspaceId }); // the document service still answers for it
    await publishEvent(stack.config, { type: 'document.deleted', workspaceId, data: { id, workspaceId } });
    await eventually(async () => {
      const row = await db.maybeOne(sql.unsafe`SELECT deleted_at FROM document_projection WHERE id = ${id}`);
      expect(row?.deleted_at).toBeTruthy();
    });
    expect((await listThreads(alice, id)).status).toBe(404);
  });

  it('deletes every thread of a deleted workspace', async () => {
    const other = (await createWorkspace(stack, sam)).id;
    const doc = stack.docs.add({ workspaceId: other });
    const thread = await newThread(sam, 'soon gone', doc);
    expect((await stack.request('DELETE', `/api/v1/workspaces/${other}`, { token: sam.token })).status).toBeLessThan(
      300,
    );
    await eventually(async () => {
      const n = await db.oneFirst(sql.unsafe`SELECT count(*)::int FROM comment_threads WHERE id = ${thread.id}`);
      expect(n).toBe(0);
    });
    expect((await listThreads(sam, doc)).status).toBe(404);
  });
});

describe('user projection', () => {
  it('shows the current name and avatar from user.upserted', async () => {
    const renamed = await signInNew(stack, 'Rhea Renamed');
    await addMember(stack, workspaceId, alice, renamed, 'COMMENTER');
    const thread = await newThread(renamed, 'Renamed soon');
    // The rename must come after the user.upserted of the sign-in, not race it.
    const signedIn = await eventually(() => {
      const found = rec.ofType('user.upserted').find((e) => e.data.id === renamed.id);
      expect(found).toBeDefined();
      return found!;
    });
    await eventually(async () =>
      expect(await db.exists(sql.unsafe`SELECT 1 FROM event_consumed WHERE event_id = ${signedIn.id}`)).toBe(true),
    );
    await publishEvent(stack.config, {
      type: 'user.upserted',
      data: {
        id: renamed.id,
        idpUid: `idp|${renamed.email}`,
        email: renamed.email,
        name: 'Rhea Renamed Again',
        avatarUrl: 'https://img.example.com/cleo.png',
      },
    });
    await eventually(async () => {
      const listed = (await listThreads(vera)).body.data.find((t: any) => t.id === thread.id);
      expect(listed.comments[0]).toMatchObject({
        userName: 'Rhea Renamed Again',
        userAvatar: 'https://img.example.com/cleo.png',
      });
      expect(listed.createdBy).toEqual({
        id: renamed.id,
        name: 'Rhea Renamed Again',
        avatarUrl: 'https://img.example.com/cleo.png',
      });
    });
  });

  it('asks the workspace service for users it has no row for', async () => {
    const forgotten = await signInNew(stack, 'Fred Forgotten');
    await addMember(stack, workspaceId, alice, forgotten, 'COMMENTER');
    const thread = await newThread(forgotten, 'Who am I?');
    await db.query(sql.unsafe`DELETE FROM projection_users WHERE id = ${forgotten.id}`);
    const listed = (await listThreads(vera)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.comments[0].userName).toBe('Fred Forgotten');
    const row = await db.maybeOne(sql.unsafe`SELECT name FROM projection_users WHERE id = ${forgotten.id}`);
    expect(row?.name).toBe('Fred Forgotten');
  });
});

describe('event contracts', () => {
  it('sent only events whose data fits the contract of their type (@wiki/events)', async () => {
    // Events of its own (the others' tests add theirs to what is checked, if they ran).
    const joiner = await signInNew(stack, 'Jo Joiner');
    await addMember(stack, workspaceId, alice, joiner, 'COMMENTER');
    const thread = await newThread(joiner, 'Draft');
    const commentId = thread.comments[0].id;
    await stack.request('PUT', `/api/v1/comments/${commentId}`, { token: joiner.token, body: { content: 'Final' } });
    await eventAbout('comment.edited', { commentId });
    await eventually(() =>
      expect(rec.ofType('invitation.accepted').some((e) => e.data.inviteeUserId === joiner.id)).toBe(true),
    );
    expect(rec.contractViolations()).toEqual([]);
  });
});
