import { randomBytes } from 'node:crypto';
import { mintServiceToken } from '@wiki/auth';
import { type Stack, uniqueEmail } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/**
 * Issue 11.8: an identity provider's profile claims never block a sign-in. An over-long `name` is
 * cut to the 255 characters a user name holds (never inside a character); a `picture` that is too
 * long or not a safe http(s) URL is dropped. avatarUrl follows the rule coverImageUrl follows
 * (libs/http image-url) also when the resolve route is called without the gateway.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startPlatform(['workspace']);
});
afterAll(() => stack?.stop());

function signInWith(claims: Record<string, unknown>) {
  const email = uniqueEmail('claims');
  return stack.jwks
    .mint({ sub: `idp|${randomBytes(6).toString('hex')}`, email, email_verified: true, ...claims })
    .then((token) => stack.request('GET', '/api/v1/users/me', { token }));
}

describe('profile claims at sign-in', () => {
  it('signs in with an over-long name, cut to 255 characters on a character boundary', async () => {
    const me = await signInWith({ name: `${'x'.repeat(254)}${'😀'.repeat(1000)}` });
    expect(me.status).toBe(200);
    expect(me.body.data.name).toBe(`${'x'.repeat(254)}😀`);
  });

  it('signs in with an over-long picture, dropped', async () => {
    const me = await signInWith({ picture: `https://img.example/${'a'.repeat(5000)}.png` });
    expect(me.status).toBe(200);
    expect(me.body.data.avatarUrl).toBeNull();
  });

  it.each([
    'javascript:alert(document.cookie)',
    'data:image/svg+xml,<svg onload=alert(1)>',
    '//evil.example/a.png',
    'https://img.example/a\n.png',
  ])('drops the picture %j', async (picture) => {
    const me = await signInWith({ picture });
    expect(me.status).toBe(200);
    expect(me.body.data.avatarUrl).toBeNull();
  });

  it('keeps an https picture', async () => {
    const me = await signInWith({ picture: 'https://img.example/face.png' });
    expect(me.body.data.avatarUrl).toBe('https://img.example/face.png');
  });
});

describe('avatarUrl on the resolve route itself (a caller other than the gateway)', () => {
  async function resolve(body: Record<string, unknown>) {
    const identity = await mintServiceToken(stack.config.internalTokenSecret, 'gateway');
    const res = await fetch(`${stack.serviceUrls.workspace}/internal/users/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wiki-identity': identity },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: { avatarUrl: string | null } } };
  }

  it('follows the coverImageUrl rule: an unsafe URL is not stored, and does not replace a stored one', async () => {
    const idpUid = `idp|${randomBytes(6).toString('hex')}`;
    const email = uniqueEmail('direct');
    const first = await resolve({ idpUid, email, avatarUrl: 'javascript:alert(1)' });
    expect(first.status).toBe(200);
    expect(first.body.data.avatarUrl).toBeNull();

    // A same-origin path passes the rule (as for a cover image), and stays when a bad one follows.
    const path = '/api/v1/attachments/file?key=avatars/me.png';
    expect((await resolve({ idpUid, email, avatarUrl: path })).body.data.avatarUrl).toBe(path);
    const after = await resolve({ idpUid, email, avatarUrl: '//evil.example/x.png' });
    expect(after.status).toBe(200);
    expect(after.body.data.avatarUrl).toBe(path);
  });
});
