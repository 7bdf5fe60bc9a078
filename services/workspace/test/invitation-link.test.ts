import { mintIdentityToken } from '@wiki/auth';
import { sql } from '@wiki/db';
import { createWorkspace, type SignedInUser, uniqueEmail } from '@wiki/testing';
import { type Harness, startHarness } from './helpers.js';

/** GET /internal/invitations/{id}/link: what the notification service e-mails (events never carry the token). */
describe('an open invitation’s link, for services', () => {
  let t: Harness;
  let ada: SignedInUser;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startHarness('service');
    ada = await t.signIn(uniqueEmail('ada'), 'Ada Inviter');
    workspaceId = (await createWorkspace(t, ada, { name: 'Linked room' })).id;
  });
  afterAll(() => t?.stop());

  const invite = async (email: string) => {
    const res = await t.call('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, {
      as: ada,
      body: { email, role: 'EDITOR', message: 'Come <in>' },
    });
    expect(res.status).toBe(201);
    return res.body.data as { invitationId: string; inviteLink: string };
  };
  const link = (id: string, identity?: string | null) =>
    t.direct('GET', `/internal/invitations/${id}/link`, { identity });

  it('answers the link the inviter was given, with what the e-mail shows', async () => {
    const email = uniqueEmail('newcomer');
    const invited = await invite(email);
    const res = await link(invited.invitationId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      invitationId: invited.invitationId,
      workspaceId,
      workspaceName: 'Linked room',
      email,
      role: 'EDITOR',
      message: 'Come <in>',
      inviterName: 'Ada Inviter',
      link: invited.inviteLink,
    });
    expect(invited.inviteLink).toMatch(/^http:\/\/wiki\.test\/invite\/[A-Za-z0-9_-]{43}$/);
  });

  it('is 404 once the invitation is cancelled or expired, and for an unknown id', async () => {
    const cancelled = await invite(uniqueEmail('cancelled'));
    const del = await t.call('DELETE', `/api/v1/workspaces/${workspaceId}/invitations/${cancelled.invitationId}`, {
      as: ada,
    });
    expect(del.status).toBe(204);
    expect((await link(cancelled.invitationId)).status).toBe(404);

    const expired = await invite(uniqueEmail('expired'));
    await t.pool.query(
      sql.unsafe`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = ${expired.invitationId}`,
    );
    expect((await link(expired.invitationId)).status).toBe(404);
    expect((await link('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await link('not-a-uuid')).status).toBe(400);
  });

  it('is for services only: a user, even the inviter, is refused', async () => {
    const invited = await invite(uniqueEmail('private'));
    const asUser = await mintIdentityToken(
      t.config.internalTokenSecret,
      { kind: 'user', userId: ada.id, email: ada.email, emailVerified: true, name: ada.name },
      60,
    );
    expect((await link(invited.invitationId, asUser)).status).toBe(403);
    expect((await link(invited.invitationId, null)).status).toBe(401);
  });
});
