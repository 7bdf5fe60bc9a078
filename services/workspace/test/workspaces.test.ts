import {
  addMember,
  createWorkspace,
  ISO_RE,
  type MemberRole,
  type SignedInUser,
  signInNew,
  UUID_RE,
} from '@wiki/testing';
import { type Harness, MODES, type Mode, startHarness } from './helpers.js';

describe.each(MODES)('workspaces (%s)', (mode: Mode) => {
  let t: Harness;
  let owner: SignedInUser;
  let stranger: SignedInUser;

  beforeAll(async () => {
    t = await startHarness(mode);
    [owner, stranger] = await Promise.all([signInNew(t, 'Olivia Owner'), signInNew(t, 'Sam Stranger')]);
  });
  afterAll(() => t?.stop());

  /** A new user who is a member of the workspace with `role`. */
  async function newMember(workspaceId: string, role: MemberRole): Promise<SignedInUser> {
    const member = await signInNew(t);
    await addMember(t, workspaceId, owner, member, role);
    return member;
  }

  describe('workspaces', () => {
    it('creates the default workspace on first sign-in', async () => {
      const newcomer = await signInNew(t, 'Nora Newcomer');
      const list = await t.call('GET', '/api/v1/workspaces', { as: newcomer });
      expect(list.status).toBe(200);
      expect(list.body.success).toBe(true);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({
        name: "Nora Newcomer's workspace",
        isDefault: true,
        ownerId: newcomer.id,
        documentCount: 0,
      });
    });

    it('creates a workspace with 201 and the full WorkspaceResponse', async () => {
      const res = await t.call('POST', '/api/v1/workspaces', {
        as: owner,
        body: {
          name: '  Engineering ',
          description: 'Docs',
          icon: '📚',
          color: '#12abEF',
          isDefault: true,
          ownerId: stranger.id,
        },
      });
      expect(res.status).toBe(201);
      const ws = res.body.data;
      expect(Object.keys(ws).sort()).toEqual(
        [
          'color',
          'createdAt',
          'description',
          'documentCount',
          'icon',
          'id',
          'isArchived',
          'isDefault',
          'name',
          'ownerId',
          'updatedAt',
        ].sort(),
      );
      expect(ws).toMatchObject({
        name: 'Engineering',
        description: 'Docs',
        icon: '📚',
        color: '#12abEF',
        ownerId: owner.id,
        isDefault: false,
        isArchived: false,
        documentCount: 0,
      });
      expect(ws.id).toMatch(UUID_RE);
      expect(ws.createdAt).toMatch(ISO_RE);

      const events = await t.outbox('workspace.created');
      expect(events.at(-1)).toMatchObject({
        workspaceId: ws.id,
        actorId: owner.id,
        data: { id: ws.id, name: 'Engineering', icon: '📚', isArchived: false, ownerId: owner.id },
      });
      const added = await t.outbox('member.added');
      expect(added.at(-1)).toMatchObject({
        workspaceId: ws.id,
        data: { workspaceId: ws.id, userId: owner.id, role: 'OWNER' },
      });
    });

    it.each([
      ['missing name', {}],
      ['blank name', { name: '   ' }],
      ['name over 255', { name: 'x'.repeat(256) }],
      ['description over 1000', { name: 'a', description: 'x'.repeat(1001) }],
      ['icon over 50', { name: 'a', icon: 'x'.repeat(51) }],
      ['color over 20', { name: 'a', color: `#${'a'.repeat(20)}` }],
      ['color not hex', { name: 'a', color: 'red' }],
    ])('refuses a create with %s (400)', async (_what, body) => {
      const res = await t.call('POST', '/api/v1/workspaces', { as: owner, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('accepts the limits exactly', async () => {
      const res = await t.call('POST', '/api/v1/workspaces', {
        as: owner,
        body: { name: 'n'.repeat(255), description: 'd'.repeat(1000), icon: 'i'.repeat(50), color: '#abcdef12' },
      });
      expect(res.status).toBe(201);
    });

    it('answers 401 without identity and 400 for a malformed id', async () => {
      expect((await t.call('GET', '/api/v1/workspaces')).status).toBe(401);
      const bad = await t.call('GET', '/api/v1/workspaces/not-a-uuid', { as: owner });
      expect(bad.status).toBe(400);
    });

    it('hides workspaces from non-members (404) and shows them to members', async () => {
      const ws = await createWorkspace(t, owner, { name: 'Private' });
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: stranger })).status).toBe(404);
      expect((await t.call('PUT', `/api/v1/workspaces/${ws.id}`, { as: stranger, body: { name: 'x' } })).status).toBe(
        404,
      );
      expect((await t.call('DELETE', `/api/v1/workspaces/${ws.id}`, { as: stranger })).status).toBe(404);
      expect(
        (await t.call('GET', `/api/v1/workspaces/00000000-0000-4000-8000-000000000000`, { as: owner })).status,
      ).toBe(404);
      const got = await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: owner });
      expect(got.status).toBe(200);
      expect(got.body.data.name).toBe('Private');
    });

    it('lets ADMIN and OWNER update, refuses EDITOR and below (403)', async () => {
      const ws = await createWorkspace(t, owner, { name: 'Roles' });
      const admin = await newMember(ws.id, 'ADMIN');
      const editor = await newMember(ws.id, 'EDITOR');
      const commenter = await newMember(ws.id, 'COMMENTER');
      const viewer = await newMember(ws.id, 'VIEWER');

      for (const who of [editor, commenter, viewer]) {
        const res = await t.call('PUT', `/api/v1/workspaces/${ws.id}`, { as: who, body: { name: 'Nope' } });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
        expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: who })).status).toBe(200);
      }
      const byAdmin = await t.call('PUT', `/api/v1/workspaces/${ws.id}`, {
        as: admin,
        body: { name: 'Renamed', isArchived: true, color: null },
      });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.data).toMatchObject({ name: 'Renamed', isArchived: true, color: null });
      const byOwner = await t.call('PUT', `/api/v1/workspaces/${ws.id}`, {
        as: owner,
        body: { isArchived: false, description: 'back' },
      });
      expect(byOwner.body.data).toMatchObject({ name: 'Renamed', isArchived: false, description: 'back' });
      expect((await t.outbox('workspace.updated')).at(-1)).toMatchObject({
        workspaceId: ws.id,
        data: { name: 'Renamed', isArchived: false },
      });

      for (const body of [
        { name: '' },
        { name: 'x'.repeat(256) },
        { description: 'x'.repeat(1001) },
        { icon: 'x'.repeat(51) },
        { color: 'x'.repeat(21) },
        { color: '#12' },
      ]) {
        expect((await t.call('PUT', `/api/v1/workspaces/${ws.id}`, { as: owner, body })).status).toBe(400);
      }

      // Only the owner deletes.
      for (const who of [admin, editor, viewer])
        expect((await t.call('DELETE', `/api/v1/workspaces/${ws.id}`, { as: who })).status).toBe(403);
      const del = await t.call('DELETE', `/api/v1/workspaces/${ws.id}`, { as: owner });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true });
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}`, { as: owner })).status).toBe(404);
      expect((await t.call('GET', `/api/v1/workspaces/${ws.id}/members`, { as: admin })).status).toBe(404);
      expect((await t.outbox('workspace.deleted')).at(-1)).toMatchObject({
        workspaceId: ws.id,
        data: { id: ws.id, name: 'Renamed' },
      });
    });

    it('transfers ownership to an active member; the old owner becomes ADMIN', async () => {
      const ws = await createWorkspace(t, owner, { name: 'Transfer' });
      const editor = await newMember(ws.id, 'EDITOR');
      const admin = await newMember(ws.id, 'ADMIN');

      expect(
        (
          await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
            as: admin,
            body: { userId: editor.id },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
            as: stranger,
            body: { userId: editor.id },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
            as: owner,
            body: { userId: stranger.id },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
            as: owner,
            body: { userId: owner.id },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
            as: owner,
            body: { userId: 'nope' },
          })
        ).status,
      ).toBe(400);

      const res = await t.call('POST', `/api/v1/workspaces/${ws.id}/transfer-ownership`, {
        as: owner,
        body: { userId: editor.id },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: ws.id, ownerId: editor.id });

      const members = (await t.call('GET', `/api/v1/workspaces/${ws.id}/members`, { as: owner })).body.data;
      const roleOf = (id: string) => members.find((m: { userId: string }) => m.userId === id).role;
      expect(roleOf(editor.id)).toBe('OWNER');
      expect(roleOf(owner.id)).toBe('ADMIN');

      const changes = (await t.outbox('member.role_changed')).filter((e) => e.workspaceId === ws.id);
      expect(changes.map((e) => [e.data.userId, e.data.role])).toEqual([
        [owner.id, 'ADMIN'],
        [editor.id, 'OWNER'],
      ]);
      expect((await t.outbox('workspace.updated')).at(-1)).toMatchObject({
        workspaceId: ws.id,
        data: { ownerId: editor.id },
      });

      // The former owner can leave now; the new one cannot.
      expect((await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: editor })).status).toBe(409);
      expect((await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: owner })).status).toBe(204);
    });

    it('lists only the workspaces the caller belongs to', async () => {
      const loner = await signInNew(t, 'Lou Loner');
      const mine = (await t.call('GET', '/api/v1/workspaces', { as: loner })).body.data;
      expect(mine.map((w: { name: string }) => w.name)).toEqual(["Lou Loner's workspace"]);
    });

    it('describes its routes in /openapi.json with tags', async () => {
      const res = await t.direct('GET', '/openapi.json', { identity: null });
      expect(res.status).toBe(200);
      expect(res.body.info.title).toBe('Workspace service');
      expect(Object.keys(res.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/workspaces',
          '/api/v1/workspaces/{id}/transfer-ownership',
          '/api/v1/invitations/{token}/info',
        ]),
      );
      expect(Object.keys(res.body.paths).some((p) => p.startsWith('/internal'))).toBe(false);
      expect(res.body.paths['/api/v1/workspaces'].post.tags).toEqual(['Workspaces']);
    });

    it('answers readiness with the database check', async () => {
      const res = await t.direct('GET', '/health/ready', { identity: null });
      expect(res.status).toBe(200);
      expect(res.body.checks).toEqual(
        mode === 'service' ? { database: 'UP', accepting: 'UP' } : { database: 'UP', nats: 'UP', accepting: 'UP' },
      );
    });
  });
});
