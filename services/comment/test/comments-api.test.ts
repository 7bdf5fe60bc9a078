import { randomUUID } from 'node:crypto';
import { createWorkspace, ISO_RE, type SignedInUser, signInNew, UUID_RE, workspaceWith } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchor, type CommentStack, startCommentStack } from './helpers.js';

let stack: CommentStack;
let alice: SignedInUser; // OWNER
let adam: SignedInUser; // ADMIN
let eve: SignedInUser; // EDITOR
let carl: SignedInUser; // COMMENTER
let cleo: SignedInUser; // COMMENTER
let vera: SignedInUser; // VIEWER
let sam: SignedInUser; // not a member
let workspaceId: string;
let documentId: string;

beforeAll(async () => {
  stack = await startCommentStack();
  [alice, adam, eve, carl, cleo, vera, sam] = await Promise.all(
    ['Alice Owner', 'Adam Admin', 'Eve Editor', 'Carl Commenter', 'Cleo Commenter', 'Vera Viewer', 'Sam Stranger'].map(
      (name) => signInNew(stack, name),
    ),
  );
  const workspace = await workspaceWith(stack, alice, [
    [adam, 'ADMIN'],
    [eve, 'EDITOR'],
    [carl, 'COMMENTER'],
    [cleo, 'COMMENTER'],
    [vera, 'VIEWER'],
  ]);
  workspaceId = workspace.id;
  documentId = stack.docs.add({ workspaceId });
});
afterAll(() => stack?.stop());

const threadsPath = (docId = documentId) => `/api/v1/comments/documents/${docId}/threads`;

async function createThread(
  as: SignedInUser,
  content = 'First!',
  over: Record<string, unknown> = {},
  docId = documentId,
) {
  return stack.request('POST', threadsPath(docId), {
    token: as.token,
    body: { anchor: anchor(over), comment: { content } },
  });
}

async function newThread(as: SignedInUser = carl, content = 'First!', docId = documentId) {
  const res = await createThread(as, content, {}, docId);
  expect(res.status).toBe(201);
  return res.body.data;
}

async function reply(as: SignedInUser, threadId: string, content: string) {
  return stack.request('POST', `/api/v1/comments/threads/${threadId}/comments`, { token: as.token, body: { content } });
}

async function list(as: SignedInUser, query = '', docId = documentId) {
  return stack.request('GET', `${threadsPath(docId)}${query}`, { token: as.token });
}

function expectError(res: { status: number; body: any }, status: number, code: string, reason?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, ...(reason ? { reason } : {}) } });
}

describe('POST /comments/documents/{documentId}/threads', () => {
  it('creates an open thread with its first comment and every field of the spec', async () => {
    const res = await createThread(carl, 'Is this right?', {
      blockId: 'b-42',
      startOffset: 3,
      endOffset: 9,
      selectedText: 'lo wor',
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const thread = res.body.data;
    expect(thread).toEqual({
      id: expect.stringMatching(UUID_RE),
      documentId,
      workspaceId,
      anchor: { blockId: 'b-42', startOffset: 3, endOffset: 9, selectedText: 'lo wor' },
      status: 'open',
      resolvedAt: null,
      resolvedBy: null,
      createdBy: { id: carl.id, name: 'Carl Commenter', avatarUrl: null },
      comments: [
        {
          id: expect.stringMatching(UUID_RE),
          threadId: thread.id,
          userId: carl.id,
          userName: 'Carl Commenter',
          userAvatar: null,
          content: 'Is this right?',
          isEdited: false,
          createdAt: expect.stringMatching(ISO_RE),
          updatedAt: expect.stringMatching(ISO_RE),
        },
      ],
      createdAt: expect.stringMatching(ISO_RE),
      updatedAt: expect.stringMatching(ISO_RE),
    });
  });

  it('is open to COMMENTER and above, 403 for a VIEWER, 404 for a non-member', async () => {
    for (const user of [alice, adam, eve, carl]) expect((await createThread(user)).status).toBe(201);
    expectError(await createThread(vera), 403, 'FORBIDDEN');
    expectError(await createThread(sam), 404, 'NOT_FOUND');
  });

  it('needs a signed-in caller', async () => {
    const res = await stack.request('POST', threadsPath(), { body: { anchor: anchor(), comment: { content: 'x' } } });
    expect(res.status).toBe(401);
  });

  it('answers 404 for a document that does not exist, even to members', async () => {
    expectError(await createThread(alice, 'x', {}, randomUUID()), 404, 'NOT_FOUND');
  });

  it('asks the document service about a document it has not seen yet, once', async () => {
    const fresh = stack.docs.add({ workspaceId });
    await newThread(carl, 'hi', fresh);
    await newThread(carl, 'again', fresh);
    expect(stack.docs.lookups.filter((id) => id === fresh)).toHaveLength(1);
  });

  it('sends the request being served along with the look-up', async () => {
    const fresh = stack.docs.add({ workspaceId });
    const res = await stack.request('GET', threadsPath(fresh), {
      token: carl.token,
      headers: { 'x-request-id': 'req-comment-lookup' },
    });
    expect(res.status).toBe(200);
    expect(stack.docs.lookupRequestIds[stack.docs.lookups.lastIndexOf(fresh)]).toBe('req-comment-lookup');
  });

  it('answers 503 SERVICE_UNAVAILABLE when the document service fails, and asks again later', async () => {
    const fresh = stack.docs.add({ workspaceId });
    stack.docs.failWith = 500;
    try {
      expectError(await createThread(carl, 'x', {}, fresh), 503, 'SERVICE_UNAVAILABLE');
      expectError(await list(carl, '', fresh), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      stack.docs.failWith = null;
    }
    expect((await list(carl, '', fresh)).status).toBe(200);
  });

  it('answers 404 when the document is in a workspace the caller does not belong to', async () => {
    const otherWorkspace = (await createWorkspace(stack, sam)).id;
    const samsDoc = stack.docs.add({ workspaceId: otherWorkspace });
    expect((await createThread(sam, 'mine', {}, samsDoc)).status).toBe(201);
    expectError(await createThread(alice, 'x', {}, samsDoc), 404, 'NOT_FOUND');
    expectError(await list(alice, '', samsDoc), 404, 'NOT_FOUND');
  });

  describe('validation', () => {
    const post = (body: unknown) => stack.request('POST', threadsPath(), { token: carl.token, body });
    const comment = { content: 'ok' };

    it('requires the anchor and each of its fields', async () => {
      expectError(await post({ comment }), 400, 'VALIDATION_ERROR');
      expectError(await post({ anchor: null, comment }), 400, 'VALIDATION_ERROR');
      for (const field of ['blockId', 'startOffset', 'endOffset', 'selectedText']) {
        const partial: Record<string, unknown> = anchor();
        delete partial[field];
        const res = await post({ anchor: partial, comment });
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(res.body.error.details[0].field).toBe(`anchor.${field}`);
      }
    });

    it('requires a non-empty blockId', async () => {
      expectError(await post({ anchor: anchor({ blockId: '' }), comment }), 400, 'VALIDATION_ERROR');
      expectError(await post({ anchor: anchor({ blockId: '   ' }), comment }), 400, 'VALIDATION_ERROR');
      expectError(await post({ anchor: anchor({ blockId: 7 }), comment }), 400, 'VALIDATION_ERROR');
    });

    it('requires integer offsets with 0 <= startOffset <= endOffset', async () => {
      const bad = [
        { startOffset: -1 },
        { endOffset: -1 },
        { startOffset: 1.5 },
        { endOffset: 2.5 },
        { startOffset: '1' },
        { endOffset: '5' },
        { startOffset: true },
        { startOffset: 6, endOffset: 5 },
      ];
      for (const over of bad) {
        const res = await post({ anchor: anchor(over), comment });
        expect(res.status, JSON.stringify(over)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
      const reversed = await post({ anchor: anchor({ startOffset: 6, endOffset: 5 }), comment });
      expect(reversed.body.error.details).toEqual([{ field: 'anchor.endOffset', message: expect.any(String) }]);
      expect((await post({ anchor: anchor({ startOffset: 4, endOffset: 4, selectedText: '' }), comment })).status).toBe(
        201,
      );
    });

    it('takes selectedText up to 2,000 characters', async () => {
      expect((await post({ anchor: anchor({ selectedText: 'x'.repeat(2000) }), comment })).status).toBe(201);
      const res = await post({ anchor: anchor({ selectedText: 'x'.repeat(2001) }), comment });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details[0].field).toBe('anchor.selectedText');
    });

    it('requires comment content that is a string, not blank, up to 10,000 characters', async () => {
      expectError(await post({ anchor: anchor() }), 400, 'VALIDATION_ERROR');
      for (const content of [undefined, '', '   \n\t', 'x'.repeat(10_001), 42, null]) {
        const res = await post({ anchor: anchor(), comment: { content } });
        expect(res.status, JSON.stringify(content)).toBe(400);
        expect(res.body.error.details[0].field).toBe('comment.content');
      }
      expect((await post({ anchor: anchor(), comment: { content: 'x'.repeat(10_000) } })).status).toBe(201);
    });

    it('refuses a malformed document id and malformed JSON', async () => {
      expectError(
        await stack.request('POST', threadsPath('not-a-uuid'), {
          token: carl.token,
          body: { anchor: anchor(), comment },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await stack.request('POST', threadsPath(), { token: carl.token, body: '{"anchor":' }),
        400,
        'VALIDATION_ERROR',
      );
    });
  });
});

describe('GET /comments/documents/{documentId}/threads', () => {
  let docId: string;
  let first: any;
  let second: any;
  let third: any;

  beforeAll(async () => {
    docId = stack.docs.add({ workspaceId });
    first = await newThread(carl, 'one', docId);
    second = await newThread(eve, 'two', docId);
    third = await newThread(alice, 'three', docId);
    expect((await reply(eve, first.id, 'reply A')).status).toBe(201);
    expect((await reply(alice, first.id, 'reply B')).status).toBe(201);
    expect(
      (await stack.request('PUT', `/api/v1/comments/threads/${second.id}/resolve`, { token: carl.token })).status,
    ).toBe(200);
  });

  it('lists every thread oldest first, comments oldest first, to every member', async () => {
    for (const user of [alice, adam, eve, carl, vera]) {
      const res = await list(user, '', docId);
      expect(res.status).toBe(200);
      expect(res.body.data.map((t: any) => t.id)).toEqual([first.id, second.id, third.id]);
      expect(res.body.data[0].comments.map((c: any) => [c.content, c.userName])).toEqual([
        ['one', 'Carl Commenter'],
        ['reply A', 'Eve Editor'],
        ['reply B', 'Alice Owner'],
      ]);
    }
  });

  it('filters by status all, open or resolved', async () => {
    expect((await list(vera, '?status=all', docId)).body.data.map((t: any) => t.id)).toEqual([
      first.id,
      second.id,
      third.id,
    ]);
    expect((await list(vera, '?status=open', docId)).body.data.map((t: any) => t.id)).toEqual([first.id, third.id]);
    const resolved = (await list(vera, '?status=resolved', docId)).body.data;
    expect(resolved.map((t: any) => t.id)).toEqual([second.id]);
    expect(resolved[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: { id: carl.id, name: 'Carl Commenter', avatarUrl: null },
    });
  });

  it('refuses any other status with 400', async () => {
    for (const status of ['OPEN', 'closed', '', 'open,resolved']) {
      expectError(await list(vera, `?status=${encodeURIComponent(status)}`, docId), 400, 'VALIDATION_ERROR');
    }
    expectError(await list(vera, '?status=open&status=resolved', docId), 400, 'VALIDATION_ERROR');
  });

  it('answers an empty list for a document without threads', async () => {
    const empty = stack.docs.add({ workspaceId });
    expect((await list(vera, '', empty)).body).toEqual({ success: true, data: [] });
  });

  it('answers 404 to non-members and for unknown documents', async () => {
    expectError(await list(sam, '', docId), 404, 'NOT_FOUND');
    expectError(await list(alice, '', randomUUID()), 404, 'NOT_FOUND');
  });
});

describe('POST /comments/threads/{threadId}/comments', () => {
  it('adds a reply with every field of the spec (201)', async () => {
    const thread = await newThread();
    const res = await reply(cleo, thread.id, 'Me too');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(UUID_RE),
        threadId: thread.id,
        userId: cleo.id,
        userName: 'Cleo Commenter',
        userAvatar: null,
        content: 'Me too',
        isEdited: false,
        createdAt: expect.stringMatching(ISO_RE),
        updatedAt: expect.stringMatching(ISO_RE),
      },
    });
  });

  it('is open to COMMENTER and above, 403 for a VIEWER, 404 for non-members and unknown threads', async () => {
    const thread = await newThread();
    for (const user of [alice, adam, eve, carl]) expect((await reply(user, thread.id, 'yes')).status).toBe(201);
    expectError(await reply(vera, thread.id, 'no'), 403, 'FORBIDDEN');
    expectError(await reply(sam, thread.id, 'no'), 404, 'NOT_FOUND');
    expectError(await reply(alice, randomUUID(), 'no'), 404, 'NOT_FOUND');
  });

  it('validates the content', async () => {
    const thread = await newThread();
    for (const content of ['', '  ', 'x'.repeat(10_001), 5]) {
      const res = await reply(carl, thread.id, content as string);
      expect(res.status, JSON.stringify(content)).toBe(400);
      expect(res.body.error.details[0].field).toBe('content');
    }
    expectError(
      await stack.request('POST', `/api/v1/comments/threads/${thread.id}/comments`, { token: carl.token, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await reply(carl, 'nope', 'hi'), 400, 'VALIDATION_ERROR');
  });

  it('may reply in a resolved thread, which stays resolved', async () => {
    const thread = await newThread();
    await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/resolve`, { token: carl.token });
    expect((await reply(eve, thread.id, 'late reply')).status).toBe(201);
    const listed = (await list(carl)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.status).toBe('resolved');
    expect(listed.comments).toHaveLength(2);
  });
});

describe('PUT /comments/{commentId}', () => {
  const edit = (as: SignedInUser, id: string, content: unknown) =>
    stack.request('PUT', `/api/v1/comments/${id}`, { token: as.token, body: { content } });

  it('lets the author edit, which sets isEdited', async () => {
    const thread = await newThread(carl, 'typo');
    const commentId = thread.comments[0].id;
    const res = await edit(carl, commentId, 'fixed');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: commentId,
      threadId: thread.id,
      userId: carl.id,
      userName: 'Carl Commenter',
      content: 'fixed',
      isEdited: true,
    });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.data.createdAt));
    const listed = (await list(vera)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.comments[0]).toMatchObject({ content: 'fixed', isEdited: true });
  });

  it('refuses everyone but the author (403), non-members 404, unknown comments 404', async () => {
    const thread = await newThread(carl, 'mine');
    const commentId = thread.comments[0].id;
    for (const user of [alice, adam, eve, cleo, vera])
      expectError(await edit(user, commentId, 'hijack'), 403, 'FORBIDDEN');
    expectError(await edit(sam, commentId, 'hijack'), 404, 'NOT_FOUND');
    expectError(await edit(carl, randomUUID(), 'x'), 404, 'NOT_FOUND');
    const listed = (await list(vera)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.comments[0]).toMatchObject({ content: 'mine', isEdited: false });
  });

  it('validates the content', async () => {
    const thread = await newThread(carl, 'text');
    const commentId = thread.comments[0].id;
    for (const content of ['', ' ', 'x'.repeat(10_001), null, undefined]) {
      expectError(await edit(carl, commentId, content), 400, 'VALIDATION_ERROR');
    }
    expect((await edit(carl, commentId, 'x'.repeat(10_000))).status).toBe(200);
  });
});

describe('DELETE /comments/{commentId}', () => {
  const remove = (as: SignedInUser, id: string) =>
    stack.request('DELETE', `/api/v1/comments/${id}`, { token: as.token });

  it('lets the author delete their comment (200, ApiResponse<Void>)', async () => {
    const thread = await newThread(carl);
    const replied = (await reply(eve, thread.id, 'delete me')).body.data;
    const res = await remove(eve, replied.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const listed = (await list(vera)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.comments.map((c: any) => c.id)).toEqual([thread.comments[0].id]);
    expectError(await remove(eve, replied.id), 404, 'NOT_FOUND');
  });

  it("lets an ADMIN or OWNER delete someone else's comment, but not an EDITOR or COMMENTER", async () => {
    const thread = await newThread(carl);
    const a = (await reply(cleo, thread.id, 'a')).body.data;
    const b = (await reply(cleo, thread.id, 'b')).body.data;
    expectError(await remove(eve, a.id), 403, 'FORBIDDEN');
    expectError(await remove(carl, a.id), 403, 'FORBIDDEN');
    expectError(await remove(vera, a.id), 403, 'FORBIDDEN');
    expectError(await remove(sam, a.id), 404, 'NOT_FOUND');
    expect((await remove(adam, a.id)).status).toBe(200);
    expect((await remove(alice, b.id)).status).toBe(200);
  });

  it('deleting the last comment of a thread deletes the thread', async () => {
    const thread = await newThread(carl);
    expect((await remove(carl, thread.comments[0].id)).status).toBe(200);
    expect((await list(vera)).body.data.map((t: any) => t.id)).not.toContain(thread.id);
    expectError(
      await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/resolve`, { token: carl.token }),
      404,
      'NOT_FOUND',
    );
  });

  it('keeps the thread while other comments remain, even when its first comment goes', async () => {
    const thread = await newThread(carl);
    await reply(cleo, thread.id, 'still here');
    expect((await remove(carl, thread.comments[0].id)).status).toBe(200);
    const listed = (await list(vera)).body.data.find((t: any) => t.id === thread.id);
    expect(listed.comments.map((c: any) => c.content)).toEqual(['still here']);
  });
});

describe('PUT /comments/threads/{threadId}/resolve and /reopen', () => {
  const put = (as: SignedInUser, id: string, action: 'resolve' | 'reopen') =>
    stack.request('PUT', `/api/v1/comments/threads/${id}/${action}`, { token: as.token });

  it('moves open -> resolved (setting resolvedAt and resolvedBy) -> open (clearing them)', async () => {
    const thread = await newThread(carl);
    const resolved = await put(cleo, thread.id, 'resolve');
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      id: thread.id,
      status: 'resolved',
      resolvedAt: expect.stringMatching(ISO_RE),
      resolvedBy: { id: cleo.id, name: 'Cleo Commenter', avatarUrl: null },
      comments: [{ id: thread.comments[0].id }],
    });
    const reopened = await put(eve, thread.id, 'reopen');
    expect(reopened.status).toBe(200);
    expect(reopened.body.data).toMatchObject({ id: thread.id, status: 'open', resolvedAt: null, resolvedBy: null });
    expect((await put(alice, thread.id, 'resolve')).body.data.resolvedBy.id).toBe(alice.id);
  });

  it('refuses transitions the state table does not have (409)', async () => {
    const thread = await newThread(carl);
    expectError(await put(carl, thread.id, 'reopen'), 409, 'CONFLICT', 'THREAD_ALREADY_OPEN');
    expect((await put(carl, thread.id, 'resolve')).status).toBe(200);
    expectError(await put(carl, thread.id, 'resolve'), 409, 'CONFLICT', 'THREAD_ALREADY_RESOLVED');
    const listed = (await list(vera, '?status=resolved')).body.data.find((t: any) => t.id === thread.id);
    expect(listed.resolvedBy.id).toBe(carl.id);
  });

  it('is open to COMMENTER and above, 403 for a VIEWER, 404 for non-members and unknown threads', async () => {
    const thread = await newThread(carl);
    expectError(await put(vera, thread.id, 'resolve'), 403, 'FORBIDDEN');
    expectError(await put(sam, thread.id, 'resolve'), 404, 'NOT_FOUND');
    expectError(await put(carl, randomUUID(), 'resolve'), 404, 'NOT_FOUND');
    for (const user of [alice, adam, eve, carl]) {
      expect((await put(user, thread.id, 'resolve')).status).toBe(200);
      expectError(await put(vera, thread.id, 'reopen'), 403, 'FORBIDDEN');
      expectError(await put(sam, thread.id, 'reopen'), 404, 'NOT_FOUND');
      expect((await put(user, thread.id, 'reopen')).status).toBe(200);
    }
    expectError(await put(carl, 'nope', 'reopen'), 400, 'VALIDATION_ERROR');
  });
});

describe('DELETE /comments/threads/{threadId}', () => {
  const remove = (as: SignedInUser, id: string) =>
    stack.request('DELETE', `/api/v1/comments/threads/${id}`, { token: as.token });
  const edit = (as: SignedInUser, id: string) =>
    stack.request('PUT', `/api/v1/comments/${id}`, { token: as.token, body: { content: 'x' } });

  it('lets the creator delete the thread and all its comments', async () => {
    const thread = await newThread(carl);
    const replyByCleo = (await reply(cleo, thread.id, 'a reply')).body.data;
    const res = await remove(carl, thread.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await list(vera)).body.data.map((t: any) => t.id)).not.toContain(thread.id);
    // The comments went with it: their authors can no longer reach them.
    expectError(await edit(carl, thread.comments[0].id), 404, 'NOT_FOUND');
    expectError(await edit(cleo, replyByCleo.id), 404, 'NOT_FOUND');
    expectError(await reply(carl, thread.id, 'anyone?'), 404, 'NOT_FOUND');
    expectError(await remove(carl, thread.id), 404, 'NOT_FOUND');
  });

  it("lets an ADMIN or OWNER delete someone else's thread, not an EDITOR, a COMMENTER or a VIEWER", async () => {
    const a = await newThread(carl);
    const b = await newThread(carl);
    for (const user of [eve, cleo, vera]) expectError(await remove(user, a.id), 403, 'FORBIDDEN');
    expectError(await remove(sam, a.id), 404, 'NOT_FOUND');
    expect((await remove(adam, a.id)).status).toBe(200);
    expect((await remove(alice, b.id)).status).toBe(200);
  });

  it('answers 404 for an unknown thread and 400 for a malformed id', async () => {
    expectError(await remove(alice, randomUUID()), 404, 'NOT_FOUND');
    expectError(await remove(alice, 'x'), 400, 'VALIDATION_ERROR');
  });
});

describe('service surface', () => {
  it('describes all eight endpoints in its OpenAPI document and answers health checks', async () => {
    const spec = (await (await fetch(`${stack.serviceUrls.comment}/openapi.json`)).json()) as {
      paths: Record<string, object>;
    };
    const operations = Object.entries(spec.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/v1/comments/documents/{documentId}/threads',
        'POST /api/v1/comments/documents/{documentId}/threads',
        'PUT /api/v1/comments/threads/{threadId}/resolve',
        'PUT /api/v1/comments/threads/{threadId}/reopen',
        'DELETE /api/v1/comments/threads/{threadId}',
        'POST /api/v1/comments/threads/{threadId}/comments',
        'PUT /api/v1/comments/{commentId}',
        'DELETE /api/v1/comments/{commentId}',
      ].sort(),
    );
    const ready = await fetch(`${stack.serviceUrls.comment}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'UP', checks: { database: 'UP', nats: 'UP', accepting: 'UP' } });
  });
});
