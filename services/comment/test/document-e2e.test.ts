import { createDocument, eventually, type SignedInUser, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../../test/platform.js';
import { anchor } from './helpers.js';

/** The whole path with the real document service: its openCommentCount and its deletions. */
let stack: Stack;
let alice: SignedInUser; // OWNER
let carl: SignedInUser; // COMMENTER
let workspaceId: string;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'comment']);
  [alice, carl] = await Promise.all([signInNew(stack, 'Alice Owner'), signInNew(stack, 'Carl Commenter')]);
  workspaceId = (await workspaceWith(stack, alice, [[carl, 'COMMENTER']])).id;
});
afterAll(() => stack?.stop());

async function newDocument(title: string, parentId: string | null = null): Promise<string> {
  return (await createDocument(stack, alice, { workspaceId, title, parentId })).id;
}

async function newThread(documentId: string, content = 'A thought'): Promise<any> {
  const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
    token: carl.token,
    body: { anchor: anchor(), comment: { content } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function openCommentCount(documentId: string): Promise<number> {
  const res = await stack.request('GET', `/api/v1/documents/${documentId}`, { token: alice.token });
  expect(res.status).toBe(200);
  return res.body.data.openCommentCount;
}

const expectCount = (documentId: string, n: number) =>
  eventually(async () => expect(await openCommentCount(documentId)).toBe(n));
const put = (threadId: string, action: 'resolve' | 'reopen') =>
  stack.request('PUT', `/api/v1/comments/threads/${threadId}/${action}`, { token: carl.token });
const threadsOf = (documentId: string) =>
  stack.request('GET', `/api/v1/comments/documents/${documentId}/threads`, { token: alice.token });

describe('with the document service', () => {
  it('comments on a document created a moment ago (read-through)', async () => {
    const documentId = await newDocument('Fresh');
    const thread = await newThread(documentId);
    expect(thread).toMatchObject({ documentId, workspaceId, status: 'open' });
  });

  it('keeps openCommentCount in step with creating, resolving, reopening and deleting threads', async () => {
    const documentId = await newDocument('Counted');
    expect(await openCommentCount(documentId)).toBe(0);
    const a = await newThread(documentId);
    const b = await newThread(documentId);
    await expectCount(documentId, 2);
    expect((await put(a.id, 'resolve')).status).toBe(200);
    await expectCount(documentId, 1);
    expect((await put(a.id, 'reopen')).status).toBe(200);
    await expectCount(documentId, 2);
    expect((await stack.request('DELETE', `/api/v1/comments/threads/${a.id}`, { token: carl.token })).status).toBe(200);
    await expectCount(documentId, 1);
    // Deleting the last comment of a thread deletes the thread, which counts too.
    expect((await stack.request('DELETE', `/api/v1/comments/${b.comments[0].id}`, { token: carl.token })).status).toBe(
      200,
    );
    await expectCount(documentId, 0);
  });

  it('deletes the threads of a deleted document', async () => {
    const documentId = await newDocument('Doomed');
    const thread = await newThread(documentId);
    expect((await stack.request('DELETE', `/api/v1/documents/${documentId}`, { token: alice.token })).status).toBe(200);
    await eventually(async () => expect((await threadsOf(documentId)).status).toBe(404));
    expect((await put(thread.id, 'resolve')).status).toBe(404);
    expect(
      (
        await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
          token: carl.token,
          body: { anchor: anchor(), comment: { content: 'x' } },
        })
      ).status,
    ).toBe(404);
  });

  it('deletes the threads of every document a cascade removes', async () => {
    const parent = await newDocument('Parent');
    const child = await newDocument('Child', parent);
    const grandchild = await newDocument('Grandchild', child);
    const threads = [await newThread(parent), await newThread(child), await newThread(grandchild)];
    expect((await stack.request('DELETE', `/api/v1/documents/${parent}/cascade`, { token: alice.token })).status).toBe(
      200,
    );
    for (const id of [parent, child, grandchild])
      await eventually(async () => expect((await threadsOf(id)).status).toBe(404));
    for (const t of threads) expect((await put(t.id, 'resolve')).status).toBe(404);
  });

  it('keeps the threads of children that a plain delete lifts to the root', async () => {
    const parent = await newDocument('Parent 2');
    const child = await newDocument('Child 2', parent);
    const onChild = await newThread(child);
    expect((await stack.request('DELETE', `/api/v1/documents/${parent}`, { token: alice.token })).status).toBe(200);
    await eventually(async () => expect((await threadsOf(parent)).status).toBe(404));
    expect((await threadsOf(child)).body.data.map((t: any) => t.id)).toEqual([onChild.id]);
  });
});
