import { loadAuthSettings, mintDevToken } from '@wiki/auth';
import { forwardedIdentity, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

/**
 * What the gateway tells the workspace service about a verified token (`/internal/users/resolve`):
 * whether the identity provider vouches for the email (issue 11.2), and profile claims cut or
 * dropped to what a user record keeps, so that they never refuse a sign-in (11.8).
 */

async function resolveBodyFor(gw: TestGateway, token: string, idpUid: string) {
  const res = await gw.app.inject({
    method: 'GET',
    url: '/api/v1/workspaces',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode).toBe(200);
  const body = gw.resolveCalls.filter((call) => call.idpUid === idpUid).at(-1);
  expect(body).toBeDefined();
  return body!;
}

describe('oidc: email_verified', () => {
  let idp: TestIdp;
  let strict: TestGateway;
  let trusting: TestGateway;

  beforeAll(async () => {
    idp = await startIdp();
    strict = await startTestGateway({ idp });
    trusting = await startTestGateway({ idp, env: { AUTH_EMAIL_VERIFIED_DEFAULT: 'true' } });
  });
  afterAll(async () => {
    await strict?.close();
    await trusting?.close();
    await idp?.close();
  });

  const mint = (sub: string, claims: Record<string, unknown>) =>
    idp.mint({ sub, email: `${sub}@example.com`, ...claims });

  it('passes the claim on as the provider sent it', async () => {
    expect(
      (await resolveBodyFor(strict, await mint('ev-true', { email_verified: true }), 'ev-true')).emailVerified,
    ).toBe(true);
    expect(
      (await resolveBodyFor(strict, await mint('ev-false', { email_verified: false }), 'ev-false')).emailVerified,
    ).toBe(false);
    // Some providers send the claim as a string.
    expect(
      (await resolveBodyFor(strict, await mint('ev-string', { email_verified: 'true' }), 'ev-string')).emailVerified,
    ).toBe(true);
  });

  it('forwards the verification the workspace service answered in x-wiki-identity', async () => {
    for (const verified of [true, false]) {
      const sub = `ev-forward-${verified}`;
      const res = await strict.app.inject({
        method: 'GET',
        url: '/api/v1/workspaces',
        headers: { authorization: `Bearer ${await mint(sub, { email_verified: verified })}` },
      });
      expect(res.statusCode).toBe(200);
      expect(await forwardedIdentity(strict, res.json().data.headers)).toMatchObject({
        kind: 'user',
        email: `${sub}@example.com`,
        emailVerified: verified,
      });
    }
  });

  it('counts a token without the claim as unverified unless AUTH_EMAIL_VERIFIED_DEFAULT=true', async () => {
    expect(loadAuthSettings(strict.config.env).emailVerifiedDefault).toBe(false);
    expect((await resolveBodyFor(strict, await mint('ev-absent', {}), 'ev-absent')).emailVerified).toBe(false);
    expect((await resolveBodyFor(trusting, await mint('ev-absent-2', {}), 'ev-absent-2')).emailVerified).toBe(true);
    // The setting fills in a missing claim only: a provider's "false" stays false.
    const refused = await mint('ev-false-2', { email_verified: false });
    expect((await resolveBodyFor(trusting, refused, 'ev-false-2')).emailVerified).toBe(false);
  });
});

describe('dev provider: email_verified', () => {
  let other: TestIdp;
  let gw: TestGateway;

  beforeAll(async () => {
    other = await startIdp();
    gw = await startTestGateway({
      idp: other,
      env: { AUTH_PROVIDER: 'dev', AUTH_ISSUER: '', AUTH_JWKS_URL: '', AUTH_AUDIENCE: '' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await other?.close();
  });

  it('counts the emails of `npm run token` tokens as verified (they carry no claim)', async () => {
    const token = await mintDevToken(gw.config.dataDir, 'dev-verified@example.com', 'Dev');
    expect((await resolveBodyFor(gw, token, 'dev|dev-verified@example.com')).emailVerified).toBe(true);
  });
});

describe('profile claims the user record cannot keep', () => {
  let idp: TestIdp;
  let gw: TestGateway;

  beforeAll(async () => {
    idp = await startIdp();
    gw = await startTestGateway({ idp });
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
  });

  const mint = (sub: string, claims: Record<string, unknown>) =>
    idp.mint({ sub, email: `${sub}@example.com`, email_verified: true, ...claims });

  it('cuts an over-long name to 255 characters without splitting a character', async () => {
    const name = `${'n'.repeat(254)}${'😀'.repeat(600)}`;
    const body = await resolveBodyFor(gw, await mint('long-name', { name }), 'long-name');
    expect(body.name).toBe(`${'n'.repeat(254)}😀`);
    expect([...(body.name as string)]).toHaveLength(255);
  });

  it.each([
    ['longer than 2048 characters', `https://img.example/${'p'.repeat(2100)}.png`],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:image/png;base64,AAAA'],
    ['a protocol-relative URL', '//evil.example/a.png'],
    ['a path (it would resolve against this site)', '/api/v1/attachments/file?key=x'],
    ['a URL with a tab in it', 'https://img.example/a\t.png'],
  ])('drops a picture that is %s', async (_case, picture) => {
    const sub = `pic-${Math.random().toString(36).slice(2)}`;
    const body = await resolveBodyFor(gw, await mint(sub, { picture }), sub);
    expect(body).not.toHaveProperty('avatarUrl');
  });

  it('keeps an absolute https picture', async () => {
    const body = await resolveBodyFor(gw, await mint('pic-ok', { picture: 'https://img.example/ok.png' }), 'pic-ok');
    expect(body.avatarUrl).toBe('https://img.example/ok.png');
  });
});
