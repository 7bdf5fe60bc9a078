import { randomUUID } from 'node:crypto';
import { createDatabasePool, sql } from '@wiki/db';
import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOf, awaitNotification, createThread, mention, replyTo, startNotificationStack } from './helpers.js';

let stack: Stack;
let ada: SignedInUser; // owner
let bob: SignedInUser; // editor
let cy: SignedInUser; // commenter
let dan: SignedInUser; // not a member
let workspace: { id: string; name: string };
let document: { id: string; title: string };

beforeAll(async () => {
  stack = await startNotificationStack();
  ada = await signInNew(stack, 'Ada Owner');
  bob = await signInNew(stack, 'Bob Editor');
  cy = await signInNew(stack, 'Cy Commenter');
  dan = await signInNew(stack, 'Dan Outsider');
  workspace = await workspaceWith(stack, ada, [
    [bob, 'EDITOR'],
    [cy, 'COMMENTER'],
  ]);
  document = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Design notes' });
});
afterAll(() => stack?.stop());

describe('comment notifications', () => {
  it('COMMENT_MENTION goes to each mentioned member but the author, never to a non-member', async () => {
    const thread = await createThread(
      stack,
      ada,
      document.id,
      `Please look ${mention(bob)} ${mention(dan)} ${mention(ada)}`,
    );
    const got = await awaitNotification(
      stack,
      bob,
      'COMMENT_MENTION',
      (n) => n.references.commentThreadId === thread.id,
    );
    expect(got).toMatchObject({
      status: 'UNREAD',
      actionable: false,
      actor: { id: ada.id, name: 'Ada Owner' },
      workspace: { id: workspace.id, name: workspace.name },
      document: { id: document.id, title: 'Design notes' },
      references: { invitationId: null, commentThreadId: thread.id },
      readAt: null,
      expiresAt: null,
    });
    expect(got.message).toBe('Ada Owner mentioned you in a comment on "Design notes".');
    // A later event for Cy proves the earlier ones were handled: then Dan and Ada have nothing.
    await replyTo(stack, bob, thread.id, `and ${mention(cy)}`);
    await awaitNotification(stack, cy, 'COMMENT_MENTION', (n) => n.references.commentThreadId === thread.id);
    expect((await allOf(stack, dan)).filter((n) => n.references.commentThreadId === thread.id)).toEqual([]);
    expect(
      (await allOf(stack, ada)).filter(
        (n) => n.type === 'COMMENT_MENTION' && n.references.commentThreadId === thread.id,
      ),
    ).toEqual([]);
  });

  it('COMMENT_REPLY goes to the thread’s participants but the author; THREAD_RESOLVED to all but the resolver', async () => {
    const thread = await createThread(stack, bob, document.id, 'A question');
    await replyTo(stack, cy, thread.id, 'An answer');
    const toBob = await awaitNotification(
      stack,
      bob,
      'COMMENT_REPLY',
      (n) => n.references.commentThreadId === thread.id,
    );
    expect(toBob.actor?.id).toBe(cy.id);
    expect(toBob.message).toBe('Cy Commenter replied in a thread on "Design notes".');
    await replyTo(stack, ada, thread.id, 'Agreed');
    await awaitNotification(stack, cy, 'COMMENT_REPLY', (n) => n.references.commentThreadId === thread.id);
    expect(
      (await allOf(stack, bob)).filter((n) => n.type === 'COMMENT_REPLY' && n.references.commentThreadId === thread.id),
    ).toHaveLength(2);

    const resolved = await stack.request('PUT', `/api/v1/comments/threads/${thread.id}/resolve`, { token: ada.token });
    expect(resolved.status).toBe(200);
    for (const user of [bob, cy]) {
      const n = await awaitNotification(
        stack,
        user,
        'THREAD_RESOLVED',
        (x) => x.references.commentThreadId === thread.id,
      );
      expect(n.actor?.id).toBe(ada.id);
      expect(n.message).toBe('Ada Owner resolved a thread on "Design notes".');
    }
    expect(
      (await allOf(stack, ada)).filter(
        (n) => n.type === 'THREAD_RESOLVED' && n.references.commentThreadId === thread.id,
      ),
    ).toEqual([]);
  });
});

describe('workspace notifications', () => {
  it('WORKSPACE_INVITATION is actionable, refers to the invitation, expires with it, and turns ACTIONED on accept; INVITATION_ACCEPTED goes to the inviter', async () => {
    const own = await createWorkspace(stack, ada, { name: 'Invitations room' });
    const invited = await stack.request('POST', `/api/v1/workspaces/${own.id}/members/invite`, {
      token: ada.token,
      body: { email: dan.email, role: 'EDITOR' },
    });
    expect(invited.status).toBe(201);
    const invitationId = invited.body.data.invitationId as string;
    const n = await awaitNotification(
      stack,
      dan,
      'WORKSPACE_INVITATION',
      (x) => x.references.invitationId === invitationId,
    );
    expect(n).toMatchObject({
      actionable: true,
      status: 'UNREAD',
      workspace: { id: own.id, name: 'Invitations room' },
    });
    expect(n.expiresAt).toBe(new Date(invited.body.data.expiresAt ?? n.expiresAt).toISOString());
    expect(n.message).toBe('Ada Owner invited you to join "Invitations room" as an editor.');

    const token = String(invited.body.data.inviteLink).split('/invite/')[1];
    expect((await stack.request('POST', `/api/v1/invitations/${token}/accept`, { token: dan.token })).status).toBe(200);
    const accepted = await awaitNotification(stack, ada, 'INVITATION_ACCEPTED', (x) => x.workspace?.id === own.id);
    expect(accepted.actor?.id).toBe(dan.id);
    expect(accepted.message).toBe('Dan Outsider accepted your invitation to "Invitations room".');
    const after = (await allOf(stack, dan)).find((x) => x.id === n.id);
    expect(after).toMatchObject({ status: 'ACTIONED', actionable: false });
    expect(after?.readAt).not.toBeNull();
  });

  it('a cancelled invitation takes its notification away; a declined one turns it ACTIONED', async () => {
    const own = await createWorkspace(stack, ada);
    const eve = await signInNew(stack, 'Eve Invitee');
    const cancelled = await stack.request('POST', `/api/v1/workspaces/${own.id}/members/invite`, {
      token: ada.token,
      body: { email: eve.email, role: 'VIEWER' },
    });
    const cancelledId = cancelled.body.data.invitationId as string;
    await awaitNotification(stack, eve, 'WORKSPACE_INVITATION', (x) => x.references.invitationId === cancelledId);
    const del = await stack.request('DELETE', `/api/v1/workspaces/${own.id}/invitations/${cancelledId}`, {
      token: ada.token,
    });
    expect(del.status).toBeLessThan(300);
    await eventually(async () => {
      expect((await allOf(stack, eve)).filter((x) => x.references.invitationId === cancelledId)).toEqual([]);
    });

    const other = await createWorkspace(stack, bob);
    const declined = await stack.request('POST', `/api/v1/workspaces/${other.id}/members/invite`, {
      token: bob.token,
      body: { email: eve.email, role: 'VIEWER' },
    });
    const declinedId = declined.body.data.invitationId as string;
    await awaitNotification(stack, eve, 'WORKSPACE_INVITATION', (x) => x.references.invitationId === declinedId);
    const token = String(declined.body.data.inviteLink).split('/invite/')[1];
    expect(
      (await stack.request('POST', `/api/v1/invitations/${token}/decline`, { token: eve.token })).status,
    ).toBeLessThan(300);
    await awaitNotification(
      stack,
      eve,
      'WORKSPACE_INVITATION',
      (x) => x.references.invitationId === declinedId && x.status === 'ACTIONED',
    );
  });

  it('MEMBER_ROLE_CHANGED and MEMBER_REMOVED go to the member, not to the admin who did it', async () => {
    const own = await createWorkspace(stack, ada, { name: 'Roles room' });
    const fay = await signInNew(stack, 'Fay Member');
    const member = await addMember(stack, own.id, ada, fay, 'VIEWER');
    const changed = await stack.request('PUT', `/api/v1/workspaces/${own.id}/members/${member.id}/role`, {
      token: ada.token,
      body: { role: 'EDITOR' },
    });
    expect(changed.status).toBe(200);
    const n = await awaitNotification(stack, fay, 'MEMBER_ROLE_CHANGED', (x) => x.workspace?.id === own.id);
    expect(n.message).toBe('Your role in "Roles room" is now an editor.');
    expect(n.actor?.id).toBe(ada.id);

    const removed = await stack.request('DELETE', `/api/v1/workspaces/${own.id}/members/${member.id}`, {
      token: ada.token,
    });
    expect(removed.status).toBe(204);
    const r = await awaitNotification(stack, fay, 'MEMBER_REMOVED', (x) => x.workspace?.id === own.id);
    expect(r.message).toBe('You were removed from "Roles room".');
    const mine = (await allOf(stack, ada)).filter(
      (x) => x.workspace?.id === own.id && (x.type === 'MEMBER_REMOVED' || x.type === 'MEMBER_ROLE_CHANGED'),
    );
    expect(mine).toEqual([]);
  });
});

describe('more rules', () => {
  it('an edit that adds a mention notifies the new mention only', async () => {
    const thread = await createThread(stack, ada, document.id, 'Draft');
    const reply = await replyTo(stack, ada, thread.id, `For ${mention(bob)}`);
    await awaitNotification(stack, bob, 'COMMENT_MENTION', (n) => n.metadata.commentId === reply.id);
    const edited = await stack.request('PUT', `/api/v1/comments/${reply.id}`, {
      token: ada.token,
      body: { content: `For ${mention(bob)} and ${mention(cy)}` },
    });
    expect(edited.status).toBe(200);
    const toCy = await awaitNotification(stack, cy, 'COMMENT_MENTION', (n) => n.metadata.commentId === reply.id);
    expect(toCy.actor?.id).toBe(ada.id);
    expect((await allOf(stack, bob)).filter((n) => n.metadata.commentId === reply.id)).toHaveLength(1);
  });

  it('a resent invitation refreshes its one notification (UNREAD again) instead of adding one', async () => {
    const own = await createWorkspace(stack, ada);
    const gil = await signInNew(stack, 'Gil Resent');
    const invited = await stack.request('POST', `/api/v1/workspaces/${own.id}/members/invite`, {
      token: ada.token,
      body: { email: gil.email, role: 'VIEWER' },
    });
    const invitationId = invited.body.data.invitationId as string;
    const first = await awaitNotification(
      stack,
      gil,
      'WORKSPACE_INVITATION',
      (x) => x.references.invitationId === invitationId,
    );
    expect((await stack.request('POST', `/api/v1/notifications/${first.id}/read`, { token: gil.token })).status).toBe(
      200,
    );
    const resent = await stack.request('POST', `/api/v1/workspaces/${own.id}/invitations/${invitationId}/resend`, {
      token: ada.token,
    });
    expect(resent.status).toBe(200);
    const again = await awaitNotification(
      stack,
      gil,
      'WORKSPACE_INVITATION',
      (x) => x.references.invitationId === invitationId && x.status === 'UNREAD',
    );
    expect(again.id).toBe(first.id);
    expect(again.readAt).toBeNull();
    expect(Date.parse(again.expiresAt ?? '')).toBeGreaterThanOrEqual(Date.parse(first.expiresAt ?? ''));
    expect((await allOf(stack, gil)).filter((x) => x.references.invitationId === invitationId)).toHaveLength(1);
  });

  it('deleting a document deletes the notifications about it', async () => {
    const doomed = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Doomed' });
    const thread = await createThread(stack, ada, doomed.id, `See ${mention(bob)}`);
    await awaitNotification(stack, bob, 'COMMENT_MENTION', (n) => n.references.commentThreadId === thread.id);
    expect((await stack.request('DELETE', `/api/v1/documents/${doomed.id}`, { token: ada.token })).status).toBe(200);
    await eventually(async () => {
      expect((await allOf(stack, bob)).filter((n) => n.document?.id === doomed.id)).toEqual([]);
    });
  });

  it('shows the title of a document it has no name for, asked of the document service', async () => {
    const pool = await createDatabasePool(stack.config.databaseUrls.notification);
    try {
      const unseen = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Unseen title' });
      await eventually(async () =>
        expect(await pool.maybeOneFirst(sql.unsafe`SELECT title FROM document_titles WHERE id = ${unseen.id}`)).toBe(
          'Unseen title',
        ),
      );
      await pool.query(sql.unsafe`DELETE FROM document_titles WHERE id = ${unseen.id}`);
      const thread = await createThread(stack, ada, unseen.id, `Look ${mention(bob)}`);
      const n = await awaitNotification(
        stack,
        bob,
        'COMMENT_MENTION',
        (x) => x.references.commentThreadId === thread.id,
      );
      expect(n.document).toEqual({ id: unseen.id, title: 'Unseen title' });
    } finally {
      await pool.end();
    }
  });

  it('deleting a workspace deletes the notifications about it', async () => {
    const own = await createWorkspace(stack, ada, { name: 'Short-lived' });
    const hal = await signInNew(stack, 'Hal Member');
    const member = await addMember(stack, own.id, ada, hal, 'VIEWER');
    await stack.request('PUT', `/api/v1/workspaces/${own.id}/members/${member.id}/role`, {
      token: ada.token,
      body: { role: 'EDITOR' },
    });
    await awaitNotification(stack, hal, 'MEMBER_ROLE_CHANGED', (x) => x.workspace?.id === own.id);
    await awaitNotification(stack, ada, 'INVITATION_ACCEPTED', (x) => x.workspace?.id === own.id);
    const deleted = await stack.request('DELETE', `/api/v1/workspaces/${own.id}`, { token: ada.token });
    expect(deleted.status).toBeLessThan(300);
    await eventually(async () => {
      expect((await allOf(stack, hal)).filter((x) => x.workspace?.id === own.id)).toEqual([]);
      expect((await allOf(stack, ada)).filter((x) => x.workspace?.id === own.id)).toEqual([]);
    });
  });

  it('publishes its routes in its OpenAPI document', async () => {
    const res = await fetch(`${stack.serviceUrls.notification}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/notifications',
        '/api/v1/notifications/unread',
        '/api/v1/notifications/type/{type}',
        '/api/v1/notifications/count',
        '/api/v1/notifications/read-all',
        '/api/v1/notifications/{id}/read',
        '/api/v1/notifications/{id}/actioned',
        '/api/v1/notifications/{id}/dismiss',
        '/api/v1/notifications/{id}',
      ]),
    );
  });
});

describe('job notifications', () => {
  it('JOB_FINISHED goes to the job’s owner, who started it, with ids only', async () => {
    const jobId = randomUUID();
    await publishEvent(stack.config, {
      type: 'job.finished',
      actorId: ada.id,
      workspaceId: workspace.id,
      data: {
        id: jobId,
        kind: 'export',
        status: 'done',
        ownerId: ada.id,
        workspaceId: workspace.id,
        documentId: document.id,
      },
    });
    const got = await awaitNotification(stack, ada, 'JOB_FINISHED', (n) => n.metadata?.jobId === jobId);
    expect(got).toMatchObject({
      title: 'The export is ready',
      message: 'Your export of "Design notes" has finished.',
      document: { id: document.id },
      metadata: { jobId, kind: 'export', status: 'done' },
    });
    const failedId = randomUUID();
    await publishEvent(stack.config, {
      type: 'job.finished',
      actorId: bob.id,
      workspaceId: workspace.id,
      data: { id: failedId, kind: 'export', status: 'failed', ownerId: bob.id, workspaceId: workspace.id },
    });
    const failed = await awaitNotification(stack, bob, 'JOB_FINISHED', (n) => n.metadata?.jobId === failedId);
    expect(failed.title).toBe('The export failed');
    // Nobody else hears of another's job.
    expect((await allOf(stack, ada)).filter((n) => n.metadata?.jobId === failedId)).toEqual([]);
  });
});
