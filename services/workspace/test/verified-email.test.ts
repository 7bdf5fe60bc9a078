import { randomBytes } from 'node:crypto';
import { mintIdentityToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createWorkspace, readOutbox, type SignedInUser, type Stack, uniqueEmail } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { tokenOf } from './helpers.js';

/**
 * Issue 11.2, end to end (OIDC tokens from the test IdP, the real gateway and workspace service):
 * an email matches invitations and links an account only when the identity provider vouches for
 * it (`email_verified: true`), or, for tokens without the claim, when AUTH_EMAIL_VERIFIED_DEFAULT
 * says such emails are verified.
 */

interface Running {
  stack: Stack;
  pool: DatabasePool;
  owner: SignedInUser;
  workspaceId: string;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const stack = await startPlatform(['workspace'], { env });
  const pool = await createDatabasePool(stack.config.databaseUrls.workspace);
  const owner = await stack.signIn(uniqueEmail('owner'), 'Owner');
  const workspaceId = (await createWorkspace(stack, owner)).id;
  return { stack, pool, owner, workspaceId };
}

async function stop(running: Running | undefined): Promise<void> {
  await running?.pool.end();
  await running?.stack.stop();
}

/** A bearer token for `email` from a new account of the IdP, with `claims` (e.g. email_verified). */
function tokenWith(stack: Stack, email: string, claims: Record<string, unknown>): Promise<string> {
  return stack.jwks.mint({ sub: `idp|${randomBytes(6).toString('hex')}`, email, name: 'Someone', ...claims });
}

/** Invites `email` to the workspace as its owner and returns the invitation's token. */
async function invite(r: Running, email: string): Promise<string> {
  const res = await r.stack.request('POST', `/api/v1/workspaces/${r.workspaceId}/members/invite`, {
    token: r.owner.token,
    body: { email, role: 'EDITOR' },
  });
  expect(res.status).toBe(201);
  return tokenOf(res.body.data.inviteLink);
}

const myInvitations = (r: Running, token: string) => r.stack.request('GET', '/api/v1/users/me/invitations', { token });
const answer = (r: Running, token: string, invitation: string, verb: 'accept' | 'decline') =>
  r.stack.request('POST', `/api/v1/invitations/${invitation}/${verb}`, { token });

/** The invitation's status as its workspace's owner sees it (PENDING while it is listed). */
async function stillPending(r: Running, invitation: string): Promise<boolean> {
  const res = await r.stack.request('GET', `/api/v1/workspaces/${r.workspaceId}/invitations`, {
    token: r.owner.token,
  });
  return res.body.data.some((i: { token: string }) => i.token === invitation);
}

describe('verified emails (AUTH_EMAIL_VERIFIED_DEFAULT unset: false)', () => {
  let r: Running;
  beforeAll(async () => {
    r = await start();
  });
  afterAll(() => stop(r));

  it('an unverified email sees no invitation to it, and cannot accept or decline one (403)', async () => {
    const email = uniqueEmail('victim');
    const invitation = await invite(r, email);
    const attacker = await tokenWith(r.stack, email, { email_verified: false });

    const listed = await myInvitations(r, attacker);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);

    for (const verb of ['accept', 'decline'] as const) {
      const res = await answer(r, attacker, invitation, verb);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/not verified/) });
    }
    expect(await stillPending(r, invitation)).toBe(true);
    const members = await r.stack.request('GET', `/api/v1/workspaces/${r.workspaceId}/members`, {
      token: r.owner.token,
    });
    expect(members.body.data.map((m: { userEmail: string }) => m.userEmail)).not.toContain(email);
  });

  it('a verified email lists its invitation with the token and accepts it', async () => {
    const email = uniqueEmail('invitee');
    const invitation = await invite(r, email);
    const token = await tokenWith(r.stack, email, { email_verified: true });

    const listed = await myInvitations(r, token);
    expect(listed.body.data).toEqual([expect.objectContaining({ token: invitation, email, status: 'PENDING' })]);
    const accepted = await answer(r, token, invitation, 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ userEmail: email, role: 'EDITOR' });
    const members = await r.stack.request('GET', `/api/v1/workspaces/${r.workspaceId}/members`, {
      token: r.owner.token,
    });
    expect(members.body.data.map((m: { userEmail: string }) => m.userEmail)).toContain(email);
  });

  it('follows the latest token: unverified first, verified after the provider confirmed the address', async () => {
    const email = uniqueEmail('later');
    const invitation = await invite(r, email);
    const sub = `idp|${randomBytes(6).toString('hex')}`;
    const before = await r.stack.jwks.mint({ sub, email, email_verified: false });
    expect((await myInvitations(r, before)).body.data).toEqual([]);
    expect((await answer(r, before, invitation, 'accept')).status).toBe(403);

    const after = await r.stack.jwks.mint({ sub, email, email_verified: true });
    expect((await myInvitations(r, after)).body.data).toHaveLength(1);
    expect((await answer(r, after, invitation, 'decline')).status).toBe(204);
  });

  it('addresses invitation events to the invited user only while their email is verified', async () => {
    const inviteeOf = async (email: string) => {
      await invite(r, email);
      const events = await readOutbox(r.pool, 'invitation.created');
      return events.filter((e) => e.data.email === email).at(-1)?.data.inviteeUserId;
    };
    const unverifiedEmail = uniqueEmail('unverified-user');
    const unverified = await tokenWith(r.stack, unverifiedEmail, { email_verified: false });
    expect((await r.stack.request('GET', '/api/v1/users/me', { token: unverified })).status).toBe(200);
    expect(await inviteeOf(unverifiedEmail)).toBeNull();

    const verifiedEmail = uniqueEmail('verified-user');
    const verified = await tokenWith(r.stack, verifiedEmail, { email_verified: true });
    const me = await r.stack.request('GET', '/api/v1/users/me', { token: verified });
    expect(await inviteeOf(verifiedEmail)).toBe(me.body.data.id);
  });

  it('takes the identity token at its word when it says the email is unverified (it can only take trust away)', async () => {
    const email = uniqueEmail('identity');
    const invitation = await invite(r, email);
    const user = await r.stack.signIn(email); // verified: the stored flag is true
    const direct = async (emailVerified: boolean | undefined) => {
      const identity = await mintIdentityToken(r.stack.config.internalTokenSecret, {
        kind: 'user',
        userId: user.id,
        email,
        ...(emailVerified === undefined ? {} : { emailVerified }),
      });
      const res = await fetch(`${r.stack.serviceUrls.workspace}/api/v1/users/me/invitations`, {
        headers: { 'x-wiki-identity': identity },
      });
      return ((await res.json()) as { data: Array<{ token: string }> }).data.map((i) => i.token);
    };
    expect(await direct(false)).toEqual([]);
    expect(await direct(true)).toEqual([invitation]);
    // An identity without the claim (an MCP key's) leaves it to the stored flag.
    expect(await direct(undefined)).toEqual([invitation]);
  });

  it('counts a token without the claim as unverified', async () => {
    const email = uniqueEmail('silent');
    const invitation = await invite(r, email);
    const token = await tokenWith(r.stack, email, {});
    expect((await myInvitations(r, token)).body.data).toEqual([]);
    expect((await answer(r, token, invitation, 'accept')).status).toBe(403);
    expect(await stillPending(r, invitation)).toBe(true);
  });

  it('links an account known only by its email to a sign-in whose email is verified, never to an unverified one', async () => {
    const email = uniqueEmail('known');
    const id = await r.pool.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO users (email, name) VALUES (${email}, 'Known by email') RETURNING id`);
    const linkedTo = () =>
      r.pool.oneFirst(
        sql.type(z.object({ idp_uid: z.string().nullable() }))`SELECT idp_uid FROM users WHERE id = ${id}`,
      );

    const unverified = await tokenWith(r.stack, email, { email_verified: false });
    const refused = await r.stack.request('GET', '/api/v1/users/me', { token: unverified });
    expect(refused.status).toBe(401);
    expect(await linkedTo()).toBeNull();

    const sub = `idp|${randomBytes(6).toString('hex')}`;
    const verified = await r.stack.jwks.mint({ sub, email, email_verified: true });
    const me = await r.stack.request('GET', '/api/v1/users/me', { token: verified });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(id);
    expect(await linkedTo()).toBe(sub);
  });
});

describe('verified emails (AUTH_EMAIL_VERIFIED_DEFAULT=true, for providers that never send the claim)', () => {
  let r: Running;
  beforeAll(async () => {
    r = await start({ AUTH_EMAIL_VERIFIED_DEFAULT: 'true' });
  });
  afterAll(() => stop(r));

  it('a token without the claim lists and accepts the invitation to its email', async () => {
    const email = uniqueEmail('trusted');
    const invitation = await invite(r, email);
    const token = await tokenWith(r.stack, email, {});
    expect((await myInvitations(r, token)).body.data).toEqual([expect.objectContaining({ token: invitation })]);
    expect((await answer(r, token, invitation, 'accept')).status).toBe(200);
  });

  it('a token that says email_verified: false is still refused', async () => {
    const email = uniqueEmail('unconfirmed');
    const invitation = await invite(r, email);
    const token = await tokenWith(r.stack, email, { email_verified: false });
    expect((await myInvitations(r, token)).body.data).toEqual([]);
    expect((await answer(r, token, invitation, 'accept')).status).toBe(403);
  });
});
