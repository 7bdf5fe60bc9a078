import { mintIdentityToken } from '@wiki/auth';
import type { EventBus } from '@wiki/events';
import {
  connectTestBus,
  createWorkspace,
  type EventRecorder,
  eventually,
  recordEvents,
  type Stack,
  signInNew,
  testEvent,
} from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { tokenOf } from './helpers.js';

/**
 * Through the gateway with OIDC tokens, with the events on the test stream: what a client and
 * the other services see of the workspace service.
 */
let stack: Stack;
let recorder: EventRecorder;
let bus: EventBus;

beforeAll(async () => {
  stack = await startPlatform(['workspace']);
  recorder = await recordEvents(stack.config);
  bus = await connectTestBus(stack.config);
});
afterAll(async () => {
  await recorder?.close();
  await bus?.close();
  await stack?.stop();
});

describe('through the gateway', () => {
  it('first sign-in creates the user and their default workspace, and says so on the bus', async () => {
    const token = await stack.tokenFor('Linus@Example.com', 'Linus Torvalds');
    const me = await stack.request('GET', '/api/v1/users/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ email: 'Linus@Example.com', name: 'Linus Torvalds', status: 'active' });
    const list = await stack.request('GET', '/api/v1/workspaces', { token });
    expect(list.body.data).toEqual([
      expect.objectContaining({ name: "Linus Torvalds's workspace", isDefault: true, ownerId: me.body.data.id }),
    ]);
    await eventually(() => {
      expect(recorder.ofType('user.upserted').find((e) => e.data.id === me.body.data.id)).toMatchObject({
        subject: `${stack.config.eventsPrefix}.user.upserted`,
        data: { idpUid: 'idp|linus@example.com', email: 'Linus@Example.com', name: 'Linus Torvalds', avatarUrl: null },
      });
      expect(recorder.ofType('workspace.created').find((e) => e.workspaceId === list.body.data[0].id)).toBeDefined();
    });
  });

  it('ignores a client-sent x-wiki-identity (the gateway strips it)', async () => {
    const alice = await signInNew(stack, 'Alice');
    const forged = await mintIdentityToken(stack.config.internalTokenSecret, {
      kind: 'user',
      userId: alice.id,
      email: alice.email,
    });
    const res = await stack.request('GET', '/api/v1/users/me', { headers: { 'x-wiki-identity': forged } });
    expect(res.status).toBe(401);
  });

  it('runs the invitation flow between two users and publishes its events', async () => {
    const owner = await stack.signIn('owner@example.com', 'Owner');
    const guest = await stack.signIn('guest@example.com', 'Guest');
    const ws = await createWorkspace(stack, owner, { name: 'Shared' });
    const inv = await stack.request('POST', `/api/v1/workspaces/${ws.id}/members/invite`, {
      token: owner.token,
      body: { email: 'GUEST@example.com', role: 'EDITOR' },
    });
    expect(inv.status).toBe(201);
    const token = tokenOf(inv.body.data.inviteLink);

    const info = await stack.request('GET', `/api/v1/invitations/${token}/info`);
    expect(info.status).toBe(200);
    expect(info.body.data).toMatchObject({
      status: 'PENDING',
      role: 'EDITOR',
      workspace: { id: ws.id, name: 'Shared' },
    });

    const accepted = await stack.request('POST', `/api/v1/invitations/${token}/accept`, { token: guest.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ userId: guest.id, role: 'EDITOR', status: 'ACTIVE' });

    await eventually(() => {
      expect(recorder.ofType('invitation.created').find((e) => e.workspaceId === ws.id)).toMatchObject({
        data: {
          invitationId: inv.body.data.invitationId,
          email: 'GUEST@example.com',
          role: 'EDITOR',
          invitedBy: owner.id,
          inviteeUserId: guest.id,
        },
      });
      expect(
        recorder.ofType('member.added').find((e) => e.workspaceId === ws.id && e.data.userId === guest.id),
      ).toMatchObject({
        data: { workspaceId: ws.id, memberId: accepted.body.data.id, role: 'EDITOR' },
      });
      expect(recorder.ofType('invitation.accepted').find((e) => e.workspaceId === ws.id)).toMatchObject({
        actorId: guest.id,
      });
    });

    const removed = await stack.request('DELETE', `/api/v1/workspaces/${ws.id}/members/${accepted.body.data.id}`, {
      token: owner.token,
    });
    expect(removed.status).toBe(204);
    await eventually(() =>
      expect(recorder.ofType('member.removed').find((e) => e.data.userId === guest.id)).toMatchObject({
        workspaceId: ws.id,
      }),
    );
  });

  it('shows documentCount following document.* events from the bus', async () => {
    const owner = await signInNew(stack, 'Writer');
    const ws = await createWorkspace(stack, owner);
    const count = async () =>
      (await stack.request('GET', `/api/v1/workspaces/${ws.id}`, { token: owner.token })).body.data.documentCount;
    expect(await count()).toBe(0);
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of ids) {
      await bus.publish(
        testEvent('document.created', { actorId: owner.id, data: { id, workspaceId: ws.id, title: 't' } }),
      );
    }
    await eventually(async () => expect(await count()).toBe(2));
    await bus.publish(
      testEvent('document.deleted', { actorId: owner.id, data: { id: ids[0], ids: [ids[0]], workspaceId: ws.id } }),
    );
    await eventually(async () => expect(await count()).toBe(1));
    const listed = await stack.request('GET', '/api/v1/workspaces', { token: owner.token });
    expect(listed.body.data.find((w: { id: string }) => w.id === ws.id).documentCount).toBe(1);
  });
});
