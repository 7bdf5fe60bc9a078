import {
  createDocument,
  eventually,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotificationStack } from './helpers.js';
import { SseStream } from './sse.js';

let stack: Stack;
let ada: SignedInUser;
let ben: SignedInUser;
let eve: SignedInUser;
let workspaceId: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  stack = await startNotificationStack();
  [ada, ben, eve] = await Promise.all(['Ada Tree', 'Ben Tree', 'Eve Outsider'].map((n) => signInNew(stack, n)));
  workspaceId = (await workspaceWith(stack, ada, [[ben, 'EDITOR']])).id;
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await stack?.stop();
});

const api = (method: string, path: string, as: SignedInUser, body?: unknown) =>
  stack.request(method, `/api/v1${path}`, { token: as.token, body });
const watch = async (user: SignedInUser, workspace = workspaceId) => {
  const stream = await SseStream.open(`${stack.gatewayUrl}/api/v1/notifications/stream?workspaceId=${workspace}`, {
    authorization: `Bearer ${user.token}`,
  });
  streams.push(stream);
  await stream.next((e) => e.event === 'unread-count');
  return stream;
};
const trees = (stream: SseStream) => stream.events.filter((e) => e.event === 'tree');

// `tree` events on the notification stream (the web app's sidebar follows others' changes live).
describe('GET /notifications/stream?workspaceId: tree events', () => {
  it('a member hears of creations, renames, moves, archiving and comment threads', async () => {
    const stream = await watch(ben);
    const doc = await createDocument(stack, ada, { workspaceId, title: 'First', content: [paragraph('x')] });
    const created = await stream.next((e) => e.event === 'tree');
    expect(created.id).toBeUndefined();
    expect(JSON.parse(created.data ?? '')).toEqual({ workspaceId });

    const parent = await createDocument(stack, ada, { workspaceId, title: 'Parent' });
    for (const step of [
      () => api('PUT', `/documents/${doc.id}`, ada, { title: 'Renamed' }),
      () => api('PUT', `/documents/${doc.id}/move`, ada, { parentId: parent.id, index: 0 }),
      () => api('PUT', `/documents/${doc.id}`, ada, { isArchived: true }),
    ]) {
      const seen = trees(stream).length;
      expect((await step()).status).toBeLessThan(300);
      await eventually(() => expect(trees(stream).length).toBeGreaterThan(seen));
    }
  });

  it('a new comment thread is told once the tree shows its count, so a read at once sees it', async () => {
    const stream = await watch(ben);
    const doc = await createDocument(stack, ada, { workspaceId, title: 'Talked about', content: [paragraph('x')] });
    await stream.next((e) => e.event === 'tree');
    // The top level of the sidebar's tree, as the web app reads it.
    const countNow = async () => {
      const tree = await api('GET', `/documents?workspaceId=${workspaceId}`, ben);
      expect(tree.status).toBe(200);
      return (tree.body.data as { id: string; openCommentCount: number }[]).find((node) => node.id === doc.id)
        ?.openCommentCount;
    };
    for (const expected of [1, 2]) {
      const seen = trees(stream).length;
      const started = await api('POST', `/comments/documents/${doc.id}/threads`, ada, {
        anchor: { blockId: 'none', startOffset: 0, endOffset: 1, selectedText: 'x' },
        comment: { content: `thread ${expected}` },
      });
      expect(started.status).toBe(201);
      await eventually(() => expect(trees(stream).length).toBeGreaterThan(seen));
      expect(await countNow()).toBe(expected);
    }
  });

  it('nobody else hears: not an outsider naming the workspace, not a member once removed', async () => {
    const outsider = await watch(eve);
    const member = await watch(ben);
    const members = (await api('GET', `/workspaces/${workspaceId}/members`, ada)).body.data as {
      id: string;
      userId: string;
    }[];
    const bens = members.find((m) => m.userId === ben.id);
    expect(bens).toBeDefined();
    await createDocument(stack, ada, { workspaceId, title: 'Before removal' });
    await eventually(() => expect(trees(member).length).toBe(1));
    expect((await api('DELETE', `/workspaces/${workspaceId}/members/${bens?.id}`, ada)).status).toBe(204);
    // Ada's own stream marks the moment the removal reached the service.
    const own = await watch(ada);
    await createDocument(stack, ada, { workspaceId, title: 'After removal' });
    await eventually(() => expect(trees(own).length).toBe(1));
    expect(trees(member)).toHaveLength(1);
    expect(trees(outsider)).toHaveLength(0);
  });
});
