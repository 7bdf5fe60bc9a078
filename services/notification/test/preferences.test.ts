import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { createDocument, eventually, type SignedInUser, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allOf, awaitNotification, createThread, mention, startNotificationStack } from './helpers.js';

let stack: Stack;
let pool: DatabasePool;
let ada: SignedInUser;
let bob: SignedInUser;
let cy: SignedInUser;
let documentId: string;

beforeAll(async () => {
  stack = await startNotificationStack();
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  ada = await signInNew(stack, 'Ada Author');
  bob = await signInNew(stack, 'Bob Quiet');
  cy = await signInNew(stack, 'Cy Listening');
  const workspace = await workspaceWith(stack, ada, [
    [bob, 'EDITOR'],
    [cy, 'EDITOR'],
  ]);
  documentId = (await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Plans' })).id;
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

const setEnabled = async (user: SignedInUser, notificationsEnabled: boolean) => {
  const res = await stack.request('PUT', '/api/v1/users/me/preferences', {
    token: user.token,
    body: { notificationsEnabled },
  });
  expect(res.status).toBe(200);
  expect(res.body.data.preference.notificationsEnabled).toBe(notificationsEnabled);
  // The choice travels as an event of the workspace service: it counts from when it has arrived
  // (events of two services have no order between them).
  await eventually(async () =>
    expect(
      await pool.maybeOneFirst(sql.unsafe`SELECT enabled FROM notification_preferences WHERE user_id = ${user.id}`),
    ).toBe(notificationsEnabled),
  );
};

it('notificationsEnabled: false stops new notifications for that user only; true brings them back', async () => {
  await setEnabled(bob, false);
  const quiet = await createThread(stack, ada, documentId, `Both of you: ${mention(bob)} ${mention(cy)}`);
  // Cy's notification comes from the same event as Bob's would.
  await awaitNotification(stack, cy, 'COMMENT_MENTION', (n) => n.references.commentThreadId === quiet.id);
  expect((await allOf(stack, bob)).filter((n) => n.references.commentThreadId === quiet.id)).toEqual([]);

  await setEnabled(bob, true);
  const loud = await createThread(stack, ada, documentId, `Again: ${mention(bob)}`);
  await awaitNotification(stack, bob, 'COMMENT_MENTION', (n) => n.references.commentThreadId === loud.id);
  // What was not made while off does not appear later.
  expect((await allOf(stack, bob)).filter((n) => n.references.commentThreadId === quiet.id)).toEqual([]);
});
