import { randomBytes } from 'node:crypto';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createWorkspace, readOutbox, type SignedInUser, type Stack, uniqueEmail } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { tokenOf } from './helpers.js';

/**
 * Issue 11.2, the address an unverified sign-in puts on its own account (OIDC tokens from the test
 * IdP, the real gateway and workspace service): it must not keep the address's owner out. Whoever
 * signs in first with `email_verified: false` and someone else's address keeps an account of their
 * own, and the owner's later verified sign-in gets theirs, with the invitations to that address.
 */

interface Running {
  stack: Stack;
  pool: DatabasePool;
  owner: SignedInUser;
  workspaceId: string;
}

let r: Running;

beforeAll(async () => {
  const stack = await startPlatform(['workspace']);
  const pool = await createDatabasePool(stack.config.databaseUrls.workspace);
  const owner = await stack.signIn(uniqueEmail('owner'), 'Owner');
  const workspaceId = (await createWorkspace(stack, owner)).id;
  r = { stack, pool, owner, workspaceId };
});

afterAll(async () => {
  await r?.pool.end();
  await r?.stack.stop();
});

const newSub = () => `idp|${randomBytes(6).toString('hex')}`;

/** A bearer token of the IdP account `sub` saying `email`, verified or not. */
const tokenOfAccount = (sub: string, email: string, verified: boolean) =>
  r.stack.jwks.mint({ sub, email, email_verified: verified, name: 'Someone' });

const me = (token: string) => r.stack.request('GET', '/api/v1/users/me', { token });
const myInvitations = (token: string) => r.stack.request('GET', '/api/v1/users/me/invitations', { token });
const answer = (token: string, invitation: string, verb: 'accept' | 'decline') =>
  r.stack.request('POST', `/api/v1/invitations/${invitation}/${verb}`, { token });
const inviteAs = (token: string, workspaceId: string, email: string) =>
  r.stack.request('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, {
    token,
    body: { email, role: 'EDITOR' },
  });

/** Invites `email` to the workspace as its owner and returns the invitation's token. */
async function invite(email: string): Promise<string> {
  const res = await inviteAs(r.owner.token, r.workspaceId, email);
  expect(res.status).toBe(201);
  return tokenOf(res.body.data.inviteLink);
}

async function memberIds(): Promise<string[]> {
  const res = await r.stack.request('GET', `/api/v1/workspaces/${r.workspaceId}/members`, { token: r.owner.token });
  expect(res.status).toBe(200);
  return res.body.data.map((m: { userId: string }) => m.userId);
}

const UserState = z.object({ id: z.string(), idpUid: z.string().nullable(), emailVerified: z.boolean() });

/** The stored users with `email` (any case), oldest first. */
const usersWith = (email: string) =>
  r.pool.any(sql.type(UserState)`
    SELECT id, idp_uid AS "idpUid", email_verified AS "emailVerified" FROM users
    WHERE lower(email) = lower(${email}) ORDER BY created_at, id`);

describe('an unverified holder of an address (issue 11.2)', () => {
  it('does not keep the owner out: their verified sign-in gets its own account, which sees and accepts the invitation; the squatter cannot', async () => {
    const email = uniqueEmail('victim');
    const squatterSub = newSub();
    const squatter = await tokenOfAccount(squatterSub, email, false);
    const squatterMe = await me(squatter);
    expect(squatterMe.status).toBe(200);
    const squatterId: string = squatterMe.body.data.id;

    const invitation = await invite(email);
    const victim = await tokenOfAccount(newSub(), email, true);
    const victimMe = await me(victim);
    expect(victimMe.status).toBe(200);
    const victimId: string = victimMe.body.data.id;
    expect(victimId).not.toBe(squatterId);
    expect(victimMe.body.data.email).toBe(email);

    // The squatter: nothing listed, 403 on both answers.
    expect((await myInvitations(squatter)).body.data).toEqual([]);
    for (const verb of ['accept', 'decline'] as const)
      expect((await answer(squatter, invitation, verb)).status).toBe(403);

    const listed = await myInvitations(victim);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ token: invitation, email, status: 'PENDING' })]);
    const accepted = await answer(victim, invitation, 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ userId: victimId, userEmail: email, role: 'EDITOR' });
    const members = await memberIds();
    expect(members).toContain(victimId);
    expect(members).not.toContain(squatterId);

    // The squatter keeps their own untrusted account; nothing of the victim's reached it.
    const again = await me(await tokenOfAccount(squatterSub, email, false));
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(squatterId);
    expect(await usersWith(email)).toEqual([
      { id: squatterId, idpUid: squatterSub, emailVerified: false },
      { id: victimId, idpUid: expect.any(String), emailVerified: true },
    ]);
  });

  it('addresses invitation events to the verified holder, never to the squatter', async () => {
    const email = uniqueEmail('addressed');
    const squatterId = (await me(await tokenOfAccount(newSub(), email, false))).body.data.id;
    const victimMe = await me(await tokenOfAccount(newSub(), email, true));
    expect(victimMe.status).toBe(200);

    await invite(email);
    const created = await readOutbox(r.pool, 'invitation.created');
    const addressed = created.filter((e) => e.data.email === email).map((e) => e.data.inviteeUserId);
    expect(addressed).toEqual([victimMe.body.data.id]);
    expect(addressed).not.toContain(squatterId);
  });

  it('is no member by that address: a member whose email became unverified someone-else@ does not make the owner "already a member"', async () => {
    const sub = newSub();
    const ownAddress = uniqueEmail('member');
    const invitation = await invite(ownAddress);
    const member = await tokenOfAccount(sub, ownAddress, true);
    expect((await answer(member, invitation, 'accept')).status).toBe(200);

    // The member's IdP account now says another address, unverified: the account follows it.
    const email = uniqueEmail('owner-of-address');
    const changed = await me(await tokenOfAccount(sub, email, false));
    expect(changed.status).toBe(200);
    expect(changed.body.data.email).toBe(email);

    const second = await inviteAs(r.owner.token, r.workspaceId, email);
    expect(second.status).toBe(201);
    const victim = await tokenOfAccount(newSub(), email, true);
    expect((await me(victim)).status).toBe(200);
    expect((await answer(victim, tokenOf(second.body.data.inviteLink), 'accept')).status).toBe(200);

    // Now the address has a verified member: inviting it again is the usual 409.
    const third = await inviteAs(r.owner.token, r.workspaceId, email);
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already a member/) });
  });

  it('never blocks another unverified sign-in either: each keeps an account of their own', async () => {
    const email = uniqueEmail('shared');
    const first = await me(await tokenOfAccount(newSub(), email, false));
    const second = await me(await tokenOfAccount(newSub(), email, false));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });

  it('lets the owner link an account known only by its email, even when a squatter signed in with it first', async () => {
    const email = uniqueEmail('provisioned');
    const squatterId = (await me(await tokenOfAccount(newSub(), email, false))).body.data.id;
    // An operator then adds the person by email, before their first sign-in.
    const id = await r.pool.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO users (email, name) VALUES (${email}, 'Known by email') RETURNING id`);

    const sub = newSub();
    const owner = await me(await tokenOfAccount(sub, email, true));
    expect(owner.status).toBe(200);
    expect(owner.body.data.id).toBe(id);
    expect(await usersWith(email)).toEqual([
      { id: squatterId, idpUid: expect.any(String), emailVerified: false },
      { id, idpUid: sub, emailVerified: true },
    ]);
  });
});

describe('two verified holders of one address (the identity provider vouched for both)', () => {
  it('refuses the account whose email becomes verified second (401), and leaves the first as it was', async () => {
    const email = uniqueEmail('contested');
    const laterSub = newSub();
    expect((await me(await tokenOfAccount(laterSub, email, false))).status).toBe(200);
    const holder = await me(await tokenOfAccount(newSub(), email, true));
    expect(holder.status).toBe(200);

    const refused = await me(await tokenOfAccount(laterSub, email, true));
    expect(refused.status).toBe(401);
    expect(await usersWith(email)).toEqual([
      { id: expect.any(String), idpUid: laterSub, emailVerified: false },
      { id: holder.body.data.id, idpUid: expect.any(String), emailVerified: true },
    ]);
  });

  it('still refuses a second account for an address another account holds verified (409 at the service, 401 here)', async () => {
    const email = uniqueEmail('taken');
    expect((await me(await tokenOfAccount(newSub(), email, true))).status).toBe(200);
    expect((await me(await tokenOfAccount(newSub(), email, true))).status).toBe(401);
    expect((await me(await tokenOfAccount(newSub(), email, false))).status).toBe(401);
  });
});
