import {
  addMember,
  type CreatedWorkspace,
  createWorkspace,
  ISO_RE,
  type MemberRole,
  type SignedInUser,
  signInNew,
} from '@wiki/testing';
import { onTestFinished } from 'vitest';
import { type Harness, MODES, type Mode, startHarness } from './helpers.js';

describe.each(MODES)('members (%s)', (mode: Mode) => {
  let t: Harness;
  let owner: SignedInUser;
  let admin: SignedInUser;
  let editor: SignedInUser;
  let commenter: SignedInUser;
  let viewer: SignedInUser;
  let stranger: SignedInUser;
  let ws: CreatedWorkspace;
  const memberIds: Record<string, string> = {};

  /** A member of `ws` with `role`: a new user unless `email` names one. */
  async function join(role: MemberRole, name?: string, email?: string): Promise<SignedInUser> {
    const invitee = email ? await t.signIn(email, name) : await signInNew(t, name);
    memberIds[invitee.id] = (await addMember(t, ws.id, owner, invitee, role)).id;
    return invitee;
  }

  beforeAll(async () => {
    t = await startHarness(mode);
    owner = await t.signIn('owner@example.com', 'Olivia Owner');
    stranger = await signInNew(t, 'Sam Stranger');
    ws = await createWorkspace(t, owner, { name: 'Team' });
    admin = await join('ADMIN', 'Ada Admin');
    await join('ADMIN', 'Abe Admin'); // a second admin, for the searches
    editor = await join('EDITOR', 'Eddie Editor', 'editor@example.com');
    commenter = await join('COMMENTER', 'Cora Commenter');
    viewer = await join('VIEWER', 'Vic Viewer_100%');
    const members = (await t.call('GET', `/api/v1/workspaces/${ws.id}/members`, { as: owner })).body.data;
    for (const m of members) memberIds[m.userId] = m.id;
  });
  afterAll(() => t?.stop());

  const members = (as: SignedInUser) => t.call('GET', `/api/v1/workspaces/${ws.id}/members`, { as });
  const setRole = (as: SignedInUser, userId: string, role: string) =>
    t.call('PUT', `/api/v1/workspaces/${ws.id}/members/${memberIds[userId]}/role`, { as, body: { role } });
  const remove = (as: SignedInUser, userId: string) =>
    t.call('DELETE', `/api/v1/workspaces/${ws.id}/members/${memberIds[userId]}`, { as });

  describe('members', () => {
    it('lists members with the WorkspaceMemberResponse shape, owner first', async () => {
      const res = await members(viewer);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(6);
      const [first] = res.body.data;
      expect(first).toMatchObject({
        userId: owner.id,
        role: 'OWNER',
        status: 'ACTIVE',
        userName: 'Olivia Owner',
        userEmail: 'owner@example.com',
        invitedBy: null,
        invitedAt: null,
      });
      const ed = res.body.data.find((m: { userId: string }) => m.userId === editor.id);
      expect(Object.keys(ed).sort()).toEqual([
        'acceptedAt',
        'createdAt',
        'id',
        'invitedAt',
        'invitedBy',
        'role',
        'status',
        'userAvatar',
        'userEmail',
        'userId',
        'userName',
      ]);
      expect(ed).toMatchObject({
        role: 'EDITOR',
        status: 'ACTIVE',
        invitedBy: { id: owner.id, name: 'Olivia Owner', avatar: null },
      });
      expect(ed.invitedAt).toMatch(ISO_RE);
      expect(ed.acceptedAt).toMatch(ISO_RE);
      expect((await members(stranger)).status).toBe(404);
      expect((await t.call('GET', `/api/v1/workspaces/xyz/members`, { as: owner })).status).toBe(400);
    });

    it('searches members by name or email, case-insensitively, with literal wildcards', async () => {
      const search = (q?: string) =>
        t.call(
          'GET',
          `/api/v1/workspaces/${ws.id}/members/search${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`,
          { as: viewer },
        );
      const all = await search();
      expect(all.status).toBe(200);
      expect(all.body.data).toHaveLength(6);
      expect(Object.keys(all.body.data[0]).sort()).toEqual(['avatar', 'email', 'name', 'role', 'userId']);
      expect((await search('ADMIN')).body.data.map((m: { name: string }) => m.name).sort()).toEqual([
        'Abe Admin',
        'Ada Admin',
      ]);
      expect((await search('EDITOR@EXAMPLE')).body.data).toEqual([
        { userId: editor.id, name: 'Eddie Editor', email: 'editor@example.com', avatar: null, role: 'EDITOR' },
      ]);
      expect((await search('%')).body.data.map((m: { userId: string }) => m.userId)).toEqual([viewer.id]);
      expect((await search('_')).body.data.map((m: { userId: string }) => m.userId)).toEqual([viewer.id]);
      expect((await search('nobody-here')).body.data).toEqual([]);
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}/members/search?q=a`, { as: stranger })).status).toBe(
        404,
      );
      expect(
        (await t.call('GET', `/api/v1/workspaces/${ws.id}/members/search?q=${'x'.repeat(256)}`, { as: viewer })).status,
      ).toBe(400);
    });

    it('limits search results to 20', async () => {
      const big = await createWorkspace(t, owner, { name: 'Big' });
      for (let i = 0; i < 22; i++) await addMember(t, big.id, owner, await signInNew(t, `Crowd ${i}`), 'VIEWER');
      const res = await t.call('GET', `/api/v1/workspaces/${big.id}/members/search?q=crowd`, { as: owner });
      expect(res.body.data).toHaveLength(20);
    });

    it('changes roles: ADMIN and OWNER only, never above their own level', async () => {
      // Members of its own to change, so the others keep their roles whatever happens here, gone afterwards.
      const [target, promoted, otherAdmin] = [await join('VIEWER'), await join('EDITOR'), await join('ADMIN')];
      onTestFinished(async () => {
        for (const user of [target, promoted, otherAdmin]) await remove(owner, user.id);
      });
      for (const who of [editor, commenter, viewer]) {
        const res = await setRole(who, target.id, 'COMMENTER');
        expect(res.status).toBe(403);
      }
      expect((await setRole(stranger, target.id, 'COMMENTER')).status).toBe(404);

      const res = await setRole(admin, target.id, 'COMMENTER');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: memberIds[target.id], userId: target.id, role: 'COMMENTER' });
      expect((await t.outbox('member.role_changed')).at(-1)).toMatchObject({
        workspaceId: ws.id,
        actorId: admin.id,
        data: { workspaceId: ws.id, userId: target.id, memberId: memberIds[target.id], role: 'COMMENTER' },
      });
      expect((await setRole(admin, target.id, 'VIEWER')).body.data.role).toBe('VIEWER');

      // An admin may change another admin and grant ADMIN, but not touch the owner.
      expect((await setRole(admin, promoted.id, 'ADMIN')).status).toBe(200);
      expect((await setRole(admin, promoted.id, 'EDITOR')).status).toBe(200);
      expect((await setRole(admin, otherAdmin.id, 'EDITOR')).status).toBe(200);
      expect((await setRole(owner, otherAdmin.id, 'ADMIN')).status).toBe(200);
      expect((await setRole(admin, owner.id, 'VIEWER')).status).toBe(403);
    });

    it('gives OWNER only by transfer (400) and refuses unknown roles and members', async () => {
      const res = await setRole(owner, editor.id, 'OWNER');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect((await setRole(admin, editor.id, 'OWNER')).status).toBe(400);
      expect((await setRole(owner, owner.id, 'ADMIN')).status).toBe(400);
      expect((await setRole(owner, editor.id, 'BOSS')).status).toBe(400);
      expect(
        (
          await t.call('PUT', `/api/v1/workspaces/${ws.id}/members/${memberIds[editor.id]}/role`, {
            as: owner,
            body: {},
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await t.call('PUT', `/api/v1/workspaces/${ws.id}/members/00000000-0000-4000-8000-000000000000/role`, {
            as: owner,
            body: { role: 'VIEWER' },
          })
        ).status,
      ).toBe(404);
      expect(
        (await t.call('PUT', `/api/v1/workspaces/${ws.id}/members/bad/role`, { as: owner, body: { role: 'VIEWER' } }))
          .status,
      ).toBe(400);
      const roles = Object.fromEntries(
        (await members(owner)).body.data.map((m: { userId: string; role: string }) => [m.userId, m.role]),
      );
      expect(roles[editor.id]).toBe('EDITOR');
      expect(roles[owner.id]).toBe('OWNER');
    });

    it('removes members: ADMIN and OWNER only, never someone above, never the owner', async () => {
      const victim = await join('VIEWER');
      for (const who of [editor, commenter, viewer]) expect((await remove(who, victim.id)).status).toBe(403);
      expect((await remove(stranger, victim.id)).status).toBe(404);
      expect((await remove(admin, owner.id)).status).toBe(403);
      expect((await remove(owner, owner.id)).status).toBe(409);

      const res = await remove(admin, victim.id);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await remove(admin, victim.id)).status).toBe(404);
      expect((await t.outbox('member.removed')).at(-1)).toMatchObject({
        workspaceId: ws.id,
        data: { userId: victim.id, memberId: memberIds[victim.id], role: 'VIEWER' },
      });
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: victim })).status).toBe(404);

      // Admins are equals: one may remove another.
      const extraAdmin = await join('ADMIN');
      expect((await remove(admin, extraAdmin.id)).status).toBe(204);
    });

    it('lets members leave (204) but not the owner (409)', async () => {
      const leaver = await join('COMMENTER');
      const res = await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: leaver });
      expect(res.status).toBe(204);
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: leaver })).status).toBe(404);
      expect((await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: leaver })).status).toBe(404);
      const ownerLeaves = await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: owner });
      expect(ownerLeaves.status).toBe(409);
      expect(ownerLeaves.body.error.code).toBe('CONFLICT');
      expect((await t.outbox('member.removed')).at(-1)).toMatchObject({
        actorId: leaver.id,
        data: { userId: leaver.id },
      });
    });
  });
});
