import { sql } from '@wiki/db';
import { addMember, type CreatedWorkspace, createWorkspace, type SignedInUser, uniqueEmail } from '@wiki/testing';
import { type Harness, MODES, type Mode, startHarness, tokenOf } from './helpers.js';

/**
 * Issue 11.6: an invitation carries the power of whoever sent it only while they hold it. When an
 * ADMIN who invited people is removed, leaves or is lowered below ADMIN, the PENDING invitations
 * they sent are cancelled (invitation.cancelled through the outbox, as a cancel emits); accepting
 * also checks that the inviter may still invite, for any invitation left from before that rule.
 */
describe.each(MODES)('left-over invitations (%s)', (mode: Mode) => {
  let t: Harness;
  let owner: SignedInUser;

  beforeAll(async () => {
    t = await startHarness(mode);
    owner = await t.signIn(uniqueEmail('owner'), 'Owner');
  });
  afterAll(() => t?.stop());

  /** A workspace of the owner's with a new ADMIN in it; the admin's membership id for role changes. */
  async function workspaceWithAdmin(): Promise<{ ws: CreatedWorkspace; admin: SignedInUser; adminMemberId: string }> {
    const ws = await createWorkspace(t, owner);
    const admin = await t.signIn(uniqueEmail('admin'), 'Admin');
    const member = await addMember(t, ws.id, owner, admin, 'ADMIN');
    return { ws, admin, adminMemberId: member.id };
  }

  async function invite(as: SignedInUser, workspaceId: string, email: string) {
    const res = await t.call('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, {
      as,
      body: { email, role: 'EDITOR' },
    });
    expect(res.status).toBe(201);
    return { id: res.body.data.invitationId as string, token: tokenOf(res.body.data.inviteLink) };
  }

  const pendingIds = async (workspaceId: string): Promise<string[]> =>
    (await t.call('GET', `/api/v1/workspaces/${workspaceId}/invitations`, { as: owner })).body.data.map(
      (i: { id: string }) => i.id,
    );

  const cancelledEvent = async (invitationId: string) =>
    (await t.outbox('invitation.cancelled')).find((e) => e.data.invitationId === invitationId);

  /** Signs in as the invitee and tries to accept. */
  async function acceptAs(email: string, token: string) {
    const invitee = await t.signIn(email);
    return t.call('POST', `/api/v1/invitations/${token}/accept`, { as: invitee });
  }

  it('removing an ADMIN cancels the invitations they sent, and only theirs', async () => {
    const { ws, admin, adminMemberId } = await workspaceWithAdmin();
    const theirs = uniqueEmail('theirs');
    const byAdmin = await invite(admin, ws.id, theirs);
    const byOwner = await invite(owner, ws.id, uniqueEmail('owners'));

    expect((await t.call('DELETE', `/api/v1/workspaces/${ws.id}/members/${adminMemberId}`, { as: owner })).status).toBe(
      204,
    );

    expect(await pendingIds(ws.id)).toEqual([byOwner.id]);
    expect(await cancelledEvent(byAdmin.id)).toMatchObject({
      actorId: owner.id,
      workspaceId: ws.id,
      data: { invitationId: byAdmin.id, email: theirs, invitedBy: admin.id },
    });
    expect(await cancelledEvent(byOwner.id)).toBeUndefined();
    const accepted = await acceptAs(theirs, byAdmin.token);
    expect(accepted.status).toBe(410);
  });

  it('lowering an ADMIN below ADMIN cancels the invitations they sent', async () => {
    const { ws, admin, adminMemberId } = await workspaceWithAdmin();
    const email = uniqueEmail('demoted-invitee');
    const sent = await invite(admin, ws.id, email);

    const demoted = await t.call('PUT', `/api/v1/workspaces/${ws.id}/members/${adminMemberId}/role`, {
      as: owner,
      body: { role: 'EDITOR' },
    });
    expect(demoted.status).toBe(200);

    expect(await pendingIds(ws.id)).not.toContain(sent.id);
    expect(await cancelledEvent(sent.id)).toMatchObject({ actorId: owner.id, data: { invitationId: sent.id } });
    expect((await acceptAs(email, sent.token)).status).toBe(410);
  });

  it('an ADMIN who leaves takes their pending invitations with them', async () => {
    const { ws, admin } = await workspaceWithAdmin();
    const email = uniqueEmail('left-invitee');
    const sent = await invite(admin, ws.id, email);

    expect((await t.call('POST', `/api/v1/workspaces/${ws.id}/members/leave`, { as: admin })).status).toBe(204);

    expect(await pendingIds(ws.id)).not.toContain(sent.id);
    expect(await cancelledEvent(sent.id)).toMatchObject({ actorId: admin.id, data: { invitationId: sent.id } });
    expect((await acceptAs(email, sent.token)).status).toBe(410);
  });

  it('an invitation whose inviter lost the power some other way is refused at accept time (410)', async () => {
    const { ws, admin, adminMemberId } = await workspaceWithAdmin();
    const email = uniqueEmail('stale-invitee');
    const sent = await invite(admin, ws.id, email);
    // As the data of a release without the cancellation: the inviter removed, the invitation still PENDING.
    await t.pool.query(sql.unsafe`DELETE FROM workspace_members WHERE id = ${adminMemberId}`);

    const res = await acceptAs(email, sent.token);
    expect(res.status).toBe(410);
    expect(res.body.error.message).toMatch(/can no longer invite/);
    const members = await t.call('GET', `/api/v1/workspaces/${ws.id}/members`, { as: owner });
    expect(members.body.data.map((m: { userEmail: string }) => m.userEmail)).not.toContain(email);
  });
});
