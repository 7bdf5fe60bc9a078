import { sql, z } from '@wiki/db';
import {
  addMember,
  type CreatedWorkspace,
  createWorkspace,
  ISO_RE,
  type MemberRole,
  type SignedInUser,
  UUID_RE,
} from '@wiki/testing';
import { expireInvitation, type Harness, MODES, type Mode, startHarness, tokenOf } from './helpers.js';

describe.each(MODES)('invitations (%s)', (mode: Mode) => {
  let t: Harness;
  let owner: SignedInUser;
  let admin: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let ws: CreatedWorkspace;

  const invite = (as: SignedInUser, body: unknown, workspaceId = ws.id) =>
    t.call('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, { as, body });
  const accept = (as: SignedInUser, token: string, body?: unknown) =>
    t.call('POST', `/api/v1/invitations/${token}/accept`, { as, body });

  async function join(email: string, role: MemberRole): Promise<SignedInUser> {
    const u = await t.signIn(email);
    await addMember(t, ws.id, owner, u, role);
    return u;
  }

  beforeAll(async () => {
    t = await startHarness(mode, { INVITATION_TTL_DAYS: '3' });
    owner = await t.signIn('owner@example.com', 'Olivia Owner');
    ws = await createWorkspace(t, owner, { name: 'Invites', icon: '✉️' });
    admin = await join('admin@example.com', 'ADMIN');
    editor = await join('editor@example.com', 'EDITOR');
    viewer = await join('viewer@example.com', 'VIEWER');
  });
  afterAll(() => t?.stop());

  describe('invite', () => {
    it('creates a pending invitation: 201 InvitationResultResponse with the link', async () => {
      const before = Date.now();
      const res = await invite(admin, { email: 'New.Person@Example.com', role: 'EDITOR', message: 'Welcome!' });
      expect(res.status).toBe(201);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['email', 'expiresAt', 'invitationId', 'inviteLink', 'role']);
      expect(data).toMatchObject({ email: 'New.Person@Example.com', role: 'EDITOR' });
      expect(data.invitationId).toMatch(UUID_RE);
      expect(data.inviteLink).toMatch(/^http:\/\/wiki\.test\/invite\/[A-Za-z0-9_-]{43}$/);
      const days = (Date.parse(data.expiresAt) - before) / 86_400_000;
      expect(days).toBeGreaterThan(2.99);
      expect(days).toBeLessThan(3.01);
      const event = (await t.outbox('invitation.created')).at(-1);
      expect(event).toMatchObject({
        workspaceId: ws.id,
        actorId: admin.id,
        data: {
          invitationId: data.invitationId,
          workspaceId: ws.id,
          email: 'New.Person@Example.com',
          role: 'EDITOR',
          invitedBy: admin.id,
          expiresAt: data.expiresAt,
          inviteeUserId: null,
        },
      });
    });

    it('refuses EDITOR and below (403), non-members (404), OWNER role (400)', async () => {
      for (const who of [editor, viewer])
        expect((await invite(who, { email: 'x@example.com', role: 'VIEWER' })).status).toBe(403);
      const outsider = await t.signIn('outsider@example.com');
      expect((await invite(outsider, { email: 'x@example.com', role: 'VIEWER' })).status).toBe(404);
      const owned = await invite(owner, { email: 'x@example.com', role: 'OWNER' });
      expect(owned.status).toBe(400);
      expect(owned.body.error.code).toBe('VALIDATION_ERROR');
    });

    it.each([
      ['no email', { role: 'VIEWER' }],
      ['no role', { email: 'a@example.com' }],
      ['bad email', { email: 'not-an-email', role: 'VIEWER' }],
      ['email over 255', { email: `${'a'.repeat(250)}@example.com`, role: 'VIEWER' }],
      ['unknown role', { email: 'a@example.com', role: 'GOD' }],
      ['message over 500', { email: 'a@example.com', role: 'VIEWER', message: 'm'.repeat(501) }],
    ])('refuses %s (400)', async (_what, body) => {
      const res = await invite(owner, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('refuses to invite an active member (409), whatever the case of the email', async () => {
      const res = await invite(owner, { email: 'EDITOR@example.com', role: 'VIEWER' });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', reason: 'ALREADY_MEMBER' });
    });

    it('refreshes a pending invitation when inviting again (same id and token, new role)', async () => {
      const first = (await invite(owner, { email: 'twice@example.com', role: 'VIEWER' })).body.data;
      const second = await invite(admin, { email: 'TWICE@example.com', role: 'COMMENTER' });
      expect(second.status).toBe(201);
      expect(second.body.data.invitationId).toBe(first.invitationId);
      expect(second.body.data.inviteLink).toBe(first.inviteLink);
      expect(second.body.data.role).toBe('COMMENTER');
      expect(Date.parse(second.body.data.expiresAt)).toBeGreaterThanOrEqual(Date.parse(first.expiresAt));
      const list = (await t.call('GET', `/api/v1/workspaces/${ws.id}/invitations`, { as: admin })).body.data;
      expect(list.filter((i: { email: string }) => i.email.toLowerCase() === 'twice@example.com')).toHaveLength(1);
    });
  });

  describe('list, cancel and resend', () => {
    it('lists pending invitations (ADMIN+) with the WorkspaceInvitationResponse shape', async () => {
      const created = (await invite(owner, { email: 'listed@example.com', role: 'VIEWER', message: 'hi' })).body.data;
      const res = await t.call('GET', `/api/v1/workspaces/${ws.id}/invitations`, { as: admin });
      expect(res.status).toBe(200);
      const item = res.body.data.find((i: { id: string }) => i.id === created.invitationId);
      expect(Object.keys(item).sort()).toEqual([
        'email',
        'expiresAt',
        'id',
        'invitedAt',
        'invitedBy',
        'message',
        'role',
        'status',
        'token',
        'workspace',
      ]);
      expect(item).toMatchObject({
        email: 'listed@example.com',
        role: 'VIEWER',
        status: 'PENDING',
        message: 'hi',
        token: tokenOf(created.inviteLink),
        invitedBy: { id: owner.id, name: 'Olivia Owner', avatar: null },
        workspace: { id: ws.id, name: 'Invites', icon: '✉️' },
      });
      expect(item.invitedAt).toMatch(ISO_RE);
      for (const who of [editor, viewer])
        expect((await t.call('GET', `/api/v1/workspaces/${ws.id}/invitations`, { as: who })).status).toBe(403);
    });

    it('leaves expired invitations out of the list and marks them EXPIRED', async () => {
      const created = (await invite(owner, { email: 'stale@example.com', role: 'VIEWER' })).body.data;
      await expireInvitation(t.pool, created.invitationId);
      const list = (await t.call('GET', `/api/v1/workspaces/${ws.id}/invitations`, { as: owner })).body.data;
      expect(list.some((i: { id: string }) => i.id === created.invitationId)).toBe(false);
      const status = await t.pool.oneFirst(
        sql.type(z.object({ status: z.string() }))`SELECT status FROM invitations WHERE id = ${created.invitationId}`,
      );
      expect(status).toBe('EXPIRED');
      const info = await t.call('GET', `/api/v1/invitations/${tokenOf(created.inviteLink)}/info`);
      expect(info.status).toBe(410);
      expect(info.body.error).toMatchObject({ code: 'GONE', reason: 'INVITATION_EXPIRED' });
    });

    it('cancels (204, ADMIN+) and the token stops working (410)', async () => {
      const created = (await invite(owner, { email: 'cancel-me@example.com', role: 'VIEWER' })).body.data;
      const url = `/api/v1/workspaces/${ws.id}/invitations/${created.invitationId}`;
      expect((await t.call('DELETE', url, { as: editor })).status).toBe(403);
      const res = await t.call('DELETE', url, { as: admin });
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await t.call('DELETE', url, { as: admin })).body.error).toMatchObject({
        code: 'CONFLICT',
        reason: 'INVITATION_NOT_PENDING',
      });
      expect((await t.call('GET', `/api/v1/invitations/${tokenOf(created.inviteLink)}/info`)).body.error).toMatchObject(
        { code: 'GONE', reason: 'INVITATION_CLOSED' },
      );
      const invitee = await t.signIn('cancel-me@example.com');
      expect((await accept(invitee, tokenOf(created.inviteLink))).status).toBe(410);
      expect((await t.outbox('invitation.cancelled')).at(-1)).toMatchObject({
        data: { invitationId: created.invitationId, inviteeUserId: null },
      });
      expect(
        (
          await t.call('DELETE', `/api/v1/workspaces/${ws.id}/invitations/00000000-0000-4000-8000-000000000000`, {
            as: admin,
          })
        ).status,
      ).toBe(404);
    });

    it('resends: keeps the token, refreshes the expiry, revives an expired invitation', async () => {
      const created = (await invite(owner, { email: 'resend@example.com', role: 'EDITOR' })).body.data;
      await expireInvitation(t.pool, created.invitationId);
      const url = `/api/v1/workspaces/${ws.id}/invitations/${created.invitationId}/resend`;
      expect((await t.call('POST', url, { as: viewer })).status).toBe(403);
      const res = await t.call('POST', url, { as: admin });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        invitationId: created.invitationId,
        inviteLink: created.inviteLink,
        role: 'EDITOR',
      });
      expect(Date.parse(res.body.data.expiresAt)).toBeGreaterThan(Date.now() + 2.9 * 86_400_000);
      const info = await t.call('GET', `/api/v1/invitations/${tokenOf(created.inviteLink)}/info`);
      expect(info.status).toBe(200);
      expect(info.body.data.status).toBe('PENDING');
      expect((await t.outbox('invitation.created')).at(-1)).toMatchObject({
        data: { invitationId: created.invitationId, resent: true },
      });
    });
  });

  describe('answering an invitation', () => {
    it('shows the invitation publicly, 404 for an unknown token', async () => {
      const created = (await invite(owner, { email: 'peek@example.com', role: 'COMMENTER', message: 'Join us' })).body
        .data;
      const res = await t.call('GET', `/api/v1/invitations/${tokenOf(created.inviteLink)}/info`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: created.invitationId,
        email: 'peek@example.com',
        role: 'COMMENTER',
        status: 'PENDING',
        message: 'Join us',
        workspace: { id: ws.id, name: 'Invites' },
      });
      expect((await t.call('GET', '/api/v1/invitations/unknown-token/info')).status).toBe(404);
    });

    it('accepts with the invited email (any case): 200 member with the invited role; role in body ignored', async () => {
      const created = (await invite(admin, { email: 'Joiner@Example.com', role: 'COMMENTER' })).body.data;
      const joiner = await t.signIn('joiner@example.com', 'Jo Joiner');
      const mine = await t.call('GET', '/api/v1/users/me/invitations', { as: joiner });
      expect(mine.status).toBe(200);
      expect(mine.body.data.map((i: { id: string }) => i.id)).toEqual([created.invitationId]);

      const wrong = await t.signIn('eve@example.com');
      const refused = await accept(wrong, tokenOf(created.inviteLink));
      expect(refused.status).toBe(403);
      expect(
        (await t.call('POST', `/api/v1/invitations/${tokenOf(created.inviteLink)}/decline`, { as: wrong })).status,
      ).toBe(403);

      const res = await accept(joiner, tokenOf(created.inviteLink), { role: 'OWNER', status: 'ADMIN' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        userId: joiner.id,
        userName: 'Jo Joiner',
        role: 'COMMENTER',
        status: 'ACTIVE',
        invitedBy: { id: admin.id },
      });
      expect(res.body.data.acceptedAt).toMatch(ISO_RE);

      const added = (await t.outbox('member.added')).at(-1);
      expect(added).toMatchObject({
        workspaceId: ws.id,
        data: { userId: joiner.id, memberId: res.body.data.id, role: 'COMMENTER' },
      });
      expect((await t.outbox('invitation.accepted')).at(-1)).toMatchObject({
        data: { invitationId: created.invitationId, inviteeUserId: joiner.id },
      });

      // Used: 410 for everyone, and it is gone from the lists.
      expect((await accept(joiner, tokenOf(created.inviteLink))).status).toBe(410);
      expect((await t.call('GET', `/api/v1/invitations/${tokenOf(created.inviteLink)}/info`)).status).toBe(410);
      expect((await t.call('GET', '/api/v1/users/me/invitations', { as: joiner })).body.data).toEqual([]);
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: joiner })).status).toBe(200);
    });

    it('answers 410 for an expired invitation', async () => {
      const created = (await invite(owner, { email: 'late@example.com', role: 'VIEWER' })).body.data;
      const late = await t.signIn('late@example.com');
      await expireInvitation(t.pool, created.invitationId);
      expect((await accept(late, tokenOf(created.inviteLink))).status).toBe(410);
      expect(
        (await t.call('POST', `/api/v1/invitations/${tokenOf(created.inviteLink)}/decline`, { as: late })).status,
      ).toBe(410);
      expect((await t.call('GET', '/api/v1/users/me/invitations', { as: late })).body.data).toEqual([]);
    });

    it('answers 409 when accepting while already a member', async () => {
      const other = await createWorkspace(t, admin);
      const created = (await invite(admin, { email: 'double@example.com', role: 'VIEWER' }, other.id)).body.data;
      const dbl = await t.signIn('double@example.com');
      // Joined by another route meanwhile (a second invitation accepted first).
      await t.pool.query(sql.unsafe`
        INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (${other.id}, ${dbl.id}, 'VIEWER')`);
      const res = await accept(dbl, tokenOf(created.inviteLink));
      expect(res.status).toBe(409);
    });

    it('declines (204) and the invitation is used', async () => {
      const created = (await invite(owner, { email: 'nope@example.com', role: 'VIEWER' })).body.data;
      const nope = await t.signIn('nope@example.com');
      const res = await t.call('POST', `/api/v1/invitations/${tokenOf(created.inviteLink)}/decline`, { as: nope });
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await accept(nope, tokenOf(created.inviteLink))).status).toBe(410);
      expect((await t.outbox('invitation.declined')).at(-1)).toMatchObject({
        actorId: nope.id,
        data: { invitationId: created.invitationId, inviteeUserId: nope.id },
      });
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: nope })).status).toBe(404);
    });

    it('needs a signed-in user to accept or decline (401)', async () => {
      expect((await t.call('POST', '/api/v1/invitations/whatever/accept')).status).toBe(401);
      expect((await t.call('POST', '/api/v1/invitations/whatever/decline')).status).toBe(401);
      expect((await t.call('GET', '/api/v1/users/me/invitations')).status).toBe(401);
    });

    it('names the existing user as inviteeUserId when the invited email is known', async () => {
      const known = await t.signIn('known@example.com');
      await invite(owner, { email: 'known@example.com', role: 'VIEWER' });
      expect((await t.outbox('invitation.created')).at(-1)).toMatchObject({
        data: { email: 'known@example.com', inviteeUserId: known.id },
      });
    });
  });
});
