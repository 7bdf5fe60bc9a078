import { randomUUID } from 'node:crypto';
import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import { type CommentText, createServiceClient, listCommentTexts } from '@wiki/service-client';
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
import { anchor, type CommentStack, mention, startCommentStack } from './helpers.js';

/**
 * Issue 30: what search indexes comments from. comment.added / comment.edited carry the comment's
 * text (mentions as `@Name`), and GET /internal/comments/texts pages through every comment's text
 * for a reindex, read here through the service client the search service uses.
 */
let stack: CommentStack;
let rec: EventRecorder;
let alice: SignedInUser; // OWNER
let carl: SignedInUser; // COMMENTER
let workspaceId: string;

beforeAll(async () => {
  stack = await startCommentStack();
  rec = await recordEvents(stack.config);
  [alice, carl] = await Promise.all(['Alice Texts', 'Carl Texts'].map((name) => signInNew(stack, name)));
  workspaceId = (await workspaceWith(stack, alice, [[carl, 'COMMENTER']])).id;
});
afterAll(async () => {
  await rec?.close();
  await stack?.stop();
});

const quiet = { error: () => undefined };
const search = () => createServiceClient({ service: 'search', config: stack.config, logger: quiet });

async function newThread(as: SignedInUser, documentId: string, content: string) {
  const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
    token: as.token,
    body: { anchor: anchor(), comment: { content } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; comments: { id: string }[] };
}

async function reply(as: SignedInUser, threadId: string, content: string) {
  const res = await stack.request('POST', `/api/v1/comments/threads/${threadId}/comments`, {
    token: as.token,
    body: { content },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string };
}

const eventOf = (type: string, commentId: string) =>
  eventually(() => {
    const found = rec.ofType(type).filter((e) => e.data.commentId === commentId);
    expect(found).toHaveLength(1);
    return found[0];
  });

/** Every comment text of the workspace, `limit` at a time. */
async function allTexts(workspace: string, limit: number): Promise<CommentText[]> {
  const texts: CommentText[] = [];
  for (;;) {
    const page = await listCommentTexts(search(), { workspaceId: workspace, after: texts.at(-1)?.commentId, limit });
    texts.push(...page);
    if (page.length < limit) return texts;
  }
}

describe('comment texts for search', () => {
  it('sends the text with comment.added and comment.edited, mentions as @Name, and none with comment.deleted', async () => {
    const documentId = stack.docs.add({ workspaceId });
    // An escaped token is text, not a mention: it stays as written.
    const escaped = `\\@[Not](${randomUUID()})`;
    const thread = await newThread(alice, documentId, `Ask ${mention(carl)} about the ${escaped} quokka`);
    const added = await eventOf('comment.added', thread.comments[0].id);
    expect(added.data.text).toBe(`Ask @${carl.name} about the ${escaped} quokka`);
    expect(added.data.mentions).toEqual([carl.id]);

    const answer = await reply(carl, thread.id, 'A reply');
    const edit = await stack.request('PUT', `/api/v1/comments/${answer.id}`, {
      token: carl.token,
      body: { content: `Edited for ${mention(alice)}` },
    });
    expect(edit.status).toBe(200);
    expect((await eventOf('comment.edited', answer.id)).data.text).toBe(`Edited for @${alice.name}`);

    const removed = await stack.request('DELETE', `/api/v1/comments/${answer.id}`, { token: carl.token });
    expect(removed.status).toBe(200);
    expect((await eventOf('comment.deleted', answer.id)).data).not.toHaveProperty('text');
  });

  it('pages through the texts in comment id order, one workspace or all, leaving out deleted documents', async () => {
    const ws = (await workspaceWith(stack, alice, [[carl, 'COMMENTER']])).id;
    const kept = stack.docs.add({ workspaceId: ws });
    const gone = stack.docs.add({ workspaceId: ws });
    const first = await newThread(alice, kept, `Lighthouse for ${mention(carl)}`);
    const second = await reply(carl, first.id, 'Second words');
    const edited = await reply(alice, first.id, 'before');
    expect(
      (await stack.request('PUT', `/api/v1/comments/${edited.id}`, { token: alice.token, body: { content: 'after' } }))
        .status,
    ).toBe(200);
    const other = await newThread(carl, gone, 'On a document about to go');
    const elsewhere = await newThread(alice, stack.docs.add({ workspaceId }), 'Another workspace');

    const ids = [first.comments[0].id, second.id, edited.id, other.comments[0].id].sort();
    const texts = await allTexts(ws, 2);
    expect(texts.map((t) => t.commentId)).toEqual(ids);
    const byId = new Map(texts.map((t) => [t.commentId, t]));
    expect(byId.get(first.comments[0].id)).toEqual({
      commentId: first.comments[0].id,
      threadId: first.id,
      documentId: kept,
      workspaceId: ws,
      text: `Lighthouse for @${carl.name}`,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/),
    });
    expect(byId.get(edited.id)?.text).toBe('after');

    // `after` and `limit`: the page after the first id holds the next ones only.
    const rest = await listCommentTexts(search(), { workspaceId: ws, after: ids[0], limit: 2 });
    expect(rest.map((t) => t.commentId)).toEqual(ids.slice(1, 3));
    // Without a workspace: every workspace's, still in id order.
    const everything = (await listCommentTexts(search(), { limit: 500 })).map((t) => t.commentId);
    expect(everything).toEqual([...everything].sort());
    expect(everything).toEqual(expect.arrayContaining([...ids, elsewhere.comments[0].id]));

    await publishEvent(stack.config, {
      type: 'document.deleted',
      workspaceId: ws,
      data: { id: gone, workspaceId: ws },
    });
    await eventually(async () =>
      expect((await allTexts(ws, 500)).map((t) => t.commentId)).toEqual(
        ids.filter((id) => id !== other.comments[0].id),
      ),
    );
  });

  it('answers service identities only, and refuses a bad page with 400', async () => {
    const url = (query: string) => `${stack.config.urls.comment}/internal/comments/texts${query}`;
    const get = async (query: string, identity: string | null) => {
      const res = await fetch(url(query), { headers: identity ? { 'x-wiki-identity': identity } : {} });
      return { status: res.status, body: (await res.json()) as { success: boolean; error?: { code: string } } };
    };
    const service = await mintServiceToken(stack.config.internalTokenSecret, 'search');
    expect((await get('', service)).status).toBe(200);
    expect((await get('', null)).status).toBe(401);
    const user = await mintIdentityToken(stack.config.internalTokenSecret, { kind: 'user', userId: alice.id });
    expect((await get('', user)).status).toBe(403);
    for (const bad of ['?limit=0', '?limit=501', '?limit=two', '?after=nope', '?workspaceId=x']) {
      const res = await get(bad, service);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    // The gateway never forwards internal routes.
    const viaGateway = await fetch(`${stack.gatewayUrl}/internal/comments/texts`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(viaGateway.status).toBe(404);
  });
});
