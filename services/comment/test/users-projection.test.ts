import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { createWorkspace, eventually, publishEvent, type SignedInUser, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchor, type CommentStack, startCommentStack } from './helpers.js';

/** Author names and avatars come from the users projection of libs/projections (consumer comment-users). */
describe('users projection', () => {
  let stack: CommentStack;
  let db: DatabasePool; // the comment service's own database

  beforeAll(async () => {
    stack = await startCommentStack();
    db = await createDatabasePool(stack.config.databaseUrls.comment);
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const applied = (eventId: string) =>
    eventually(async () =>
      expect(
        await db.exists(sql.unsafe`
          SELECT 1 FROM event_consumed WHERE consumer = 'comment-users' AND event_id = ${eventId}`),
      ).toBe(true),
    );

  async function threadOf(as: SignedInUser, documentId: string, threadId: string) {
    const res = await stack.request('GET', `/api/v1/comments/documents/${documentId}/threads`, { token: as.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.find((thread: { id: string }) => thread.id === threadId);
  }

  it('shows a rename, and a late user.upserted from before the rename does not undo it', async () => {
    const rita = await signInNew(stack, 'Rita Original');
    const documentId = stack.docs.add({ workspaceId: (await createWorkspace(stack, rita)).id });
    const created = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
      token: rita.token,
      body: { anchor: anchor(), comment: { content: 'Who wrote this?' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const threadId: string = created.body.data.id;
    // Later than the user.upserted of the sign-in, whenever that one arrives.
    const renamedAt = Date.now() + 60_000;
    const shown = async () => {
      const thread = await threadOf(rita, documentId, threadId);
      return { createdBy: thread.createdBy, comment: thread.comments[0] };
    };
    const expectRenamed = async () =>
      expect(await shown()).toMatchObject({
        createdBy: { id: rita.id, name: 'Rita Renamed', avatarUrl: 'https://img.example.com/rita.png' },
        comment: { userId: rita.id, userName: 'Rita Renamed', userAvatar: 'https://img.example.com/rita.png' },
      });

    await publishEvent(stack.config, {
      type: 'user.upserted',
      data: { id: rita.id, email: rita.email, name: 'Rita Renamed', avatarUrl: 'https://img.example.com/rita.png' },
      occurredAt: new Date(renamedAt).toISOString(),
    });
    await eventually(expectRenamed);

    // A retry of an event from before the rename, delivered after it.
    const late = await publishEvent(stack.config, {
      type: 'user.upserted',
      data: { id: rita.id, email: rita.email, name: 'Rita Original', avatarUrl: null },
      occurredAt: new Date(renamedAt - 30_000).toISOString(),
    });
    await applied(late.id);
    await expectRenamed();
  });
});
