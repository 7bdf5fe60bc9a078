import { IDENTITY_HEADER, identity, mintIdentityToken, requireUser, verifyIdentityToken } from '@wiki/auth';
import { createApp } from '@wiki/http';
import { SignJWT } from 'jose';

const secret = 'a-test-secret-that-is-long-enough';

/** A token signed like the gateway's, but with `exp` only when `expiresAt` (epoch seconds) is given. */
function handMadeToken(expiresAt?: number): Promise<string> {
  const jwt = new SignJWT({ kind: 'user' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('wiki-gateway')
    .setAudience('wiki-services')
    .setSubject('u-forever')
    .setIssuedAt();
  if (expiresAt !== undefined) jwt.setExpirationTime(expiresAt);
  return jwt.sign(new TextEncoder().encode(secret));
}

async function build() {
  const app = await createApp({ service: 'test', logLevel: 'silent' });
  await app.register(identity, { secret });
  app.get('/me', async (request) => ({ userId: requireUser(request).userId }));
  return app;
}

describe('identity tokens carry exp', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('mints every token with an exp', async () => {
    const token = await mintIdentityToken(secret, { kind: 'user', userId: 'u-1' });
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses a well-signed token without exp: 401', async () => {
    const token = await handMadeToken();
    await expect(verifyIdentityToken(secret, token)).rejects.toThrow(/exp/);
    const app = await build();
    try {
      // The same signature and claims with an exp pass: only the missing exp is refused.
      const withExp = await handMadeToken(Math.floor(Date.now() / 1000) + 60);
      expect((await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: withExp } })).statusCode).toBe(200);
      const res = await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: token } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('UNAUTHORIZED');
    } finally {
      await app.close();
    }
  });

  it('refuses an expired token: 401, also one it verified and cached while it was valid', async () => {
    const app = await build();
    try {
      const expired = await mintIdentityToken(secret, { kind: 'user', userId: 'u-old' }, -60);
      expect((await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: expired } })).statusCode).toBe(401);

      // A token with 10 s left is accepted (and cached) now...
      vi.useFakeTimers({ toFake: ['Date'] });
      const start = Date.now();
      const shortLived = await mintIdentityToken(secret, { kind: 'user', userId: 'u-short' }, 10);
      const headers = { [IDENTITY_HEADER]: shortLived };
      expect((await app.inject({ url: '/me', headers })).statusCode).toBe(200);
      // ...and refused once its exp plus the small skew has passed, cache or not.
      vi.setSystemTime(start + 20_000);
      const late = await app.inject({ url: '/me', headers });
      expect(late.statusCode).toBe(401);
      expect(late.json().error.code).toBe('UNAUTHORIZED');
    } finally {
      await app.close();
    }
  });
});
