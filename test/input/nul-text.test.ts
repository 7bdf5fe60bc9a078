import {
  createDocument,
  expectStatus,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../platform.js';

/**
 * Issue 11, point 8a: Postgres stores no U+0000 in text or jsonb. A NUL anywhere in what a client
 * sends is a 400 VALIDATION_ERROR naming the field, through the gateway, and nothing is written.
 */
let stack: Stack;
let alice: SignedInUser;
let workspaceId: string;
let documentId: string;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'comment']);
  alice = await signInNew(stack, 'Alice Owner');
  workspaceId = (await workspaceWith(stack, alice, [], { name: 'Clean name' })).id;
  documentId = (
    await createDocument(stack, alice, { workspaceId, title: 'Clean title', content: [paragraph('clean')] })
  ).id;
});
afterAll(() => stack?.stop());

const get = async (path: string) =>
  expectStatus(await stack.request('GET', path, { token: alice.token }), 200, path).body;

/** Expects a 400 VALIDATION_ERROR whose details name `field`. */
async function expectRefused(method: string, path: string, body: unknown, field: string): Promise<void> {
  const res = await stack.request(method, path, { token: alice.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  const fields = (res.body.error.details ?? []).map((d: { field: string }) => d.field);
  expect(fields).toContain(field);
}

describe('a NUL in a text field is a 400 and changes nothing', () => {
  it('in a workspace name (create and update)', async () => {
    const names = async () =>
      ((await get('/api/v1/workspaces')).data as Array<{ id: string; name: string }>).map((w) => `${w.id} ${w.name}`);
    const before = await names();
    await expectRefused('POST', '/api/v1/workspaces', { name: 'Evil\u0000space' }, 'name');
    await expectRefused('PUT', `/api/v1/workspaces/${workspaceId}`, { name: 'Evil\u0000name' }, 'name');
    expect(await names()).toEqual(before);
    expect((await get(`/api/v1/workspaces/${workspaceId}`)).data.name).toBe('Clean name');
  });

  it('in a document title (create and update)', async () => {
    const before = await get(`/api/v1/documents?workspaceId=${workspaceId}`);
    await expectRefused('POST', '/api/v1/documents', { workspaceId, title: 'Bad\u0000title' }, 'title');
    await expectRefused('PUT', `/api/v1/documents/${documentId}`, { title: 'Bad\u0000title' }, 'title');
    expect(await get(`/api/v1/documents?workspaceId=${workspaceId}`)).toEqual(before);
    expect((await get(`/api/v1/documents/${documentId}`)).data.title).toBe('Clean title');
  });

  it("in a block's text, sent as blocks or as a JSON string holding them", async () => {
    const before = (await get(`/api/v1/documents/${documentId}`)).data;
    await expectRefused(
      'PUT',
      `/api/v1/documents/${documentId}`,
      { content: [paragraph('clean'), paragraph('bad\u0000text')] },
      'content.1.content.0.text',
    );
    // The string form hides the NUL from the edge (it is `\u0000` text inside a string until the
    // service parses it); Postgres's refusal is still the client's 400.
    await expectRefused(
      'PUT',
      `/api/v1/documents/${documentId}`,
      { content: JSON.stringify([paragraph('bad\u0000text')]) },
      'content.0.content.0.text',
    );
    const after = (await get(`/api/v1/documents/${documentId}`)).data;
    expect(after.content).toBe(before.content);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('in a comment body', async () => {
    const threads = `/api/v1/comments/documents/${documentId}/threads`;
    const anchor = { blockId: 'block-1', startOffset: 0, endOffset: 5, selectedText: 'clean' };
    await expectRefused('POST', threads, { anchor, comment: { content: 'Hi\u0000there' } }, 'comment.content');
    expect((await get(threads)).data).toEqual([]);

    const thread = expectStatus(
      await stack.request('POST', threads, { token: alice.token, body: { anchor, comment: { content: 'Fine' } } }),
      201,
      'a clean thread',
    ).body.data;
    const commentId = thread.comments[0].id;
    await expectRefused('PUT', `/api/v1/comments/${commentId}`, { content: 'Edited\u0000' }, 'content');
    expect((await get(threads)).data[0].comments[0].content).toBe('Fine');
  });

  it('in a query parameter and a path parameter', async () => {
    await expectRefused('GET', `/api/v1/workspaces/${workspaceId}/members/search?q=al%00ice`, undefined, 'q');
    await expectRefused('GET', `/api/v1/documents/${documentId.slice(0, -1)}%00`, undefined, 'id');
  });
});
