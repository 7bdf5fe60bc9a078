import {
  IDENTITY_HEADER,
  identity,
  mintIdentityToken,
  mintServiceToken,
  requireActor,
  requireKind,
  requireUser,
  verifyIdentityToken,
} from '@wiki/auth';
import { createApp } from '@wiki/http';
import { SignJWT } from 'jose';

const secret = 'a-test-secret-that-is-long-enough';

describe('identity token', () => {
  it('round-trips the caller', async () => {
    const token = await mintIdentityToken(secret, {
      kind: 'user',
      userId: '0b8f4c1e-5a4d-4d1e-9c3a-1f2e3d4c5b6a',
      email: 'ada@example.com',
      name: 'Ada',
      avatarUrl: null,
      idpUid: 'idp|ada',
      roles: ['wiki-admin'],
    });
    expect(await verifyIdentityToken(secret, token)).toEqual({
      kind: 'user',
      userId: '0b8f4c1e-5a4d-4d1e-9c3a-1f2e3d4c5b6a',
      email: 'ada@example.com',
      name: 'Ada',
      avatarUrl: null,
      idpUid: 'idp|ada',
      roles: ['wiki-admin'],
      service: undefined,
    });
  });

  it('refuses another secret, an expired token and a foreign issuer', async () => {
    const token = await mintServiceToken(secret, 'document');
    await expect(verifyIdentityToken('another-secret-that-is-long-enough', token)).rejects.toThrow();
    const expired = await mintIdentityToken(secret, { kind: 'service', service: 'x' }, -60);
    await expect(verifyIdentityToken(secret, expired)).rejects.toThrow();
    const foreign = await new SignJWT({ kind: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('someone')
      .setAudience('wiki-services')
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    await expect(verifyIdentityToken(secret, foreign)).rejects.toThrow();
  });
});

describe('identity plugin', () => {
  async function build() {
    const app = await createApp({ service: 'test', logLevel: 'silent' });
    await app.register(identity, { secret });
    app.get('/me', async (request) => ({ userId: requireUser(request).userId }));
    app.get('/internal-only', { preHandler: requireKind('service') }, async () => ({ ok: true }));
    return app;
  }

  it('writes the verified user id on the access-log line, and none for an anonymous request', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
    const app = await createApp({ service: 'test', fastify: { logger: { level: 'info', stream } } });
    await app.register(identity, { secret });
    app.get('/me', async (request) => ({ userId: requireUser(request).userId }));
    const token = await mintIdentityToken(secret, { kind: 'user', userId: 'u-log' });
    const signedIn = await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: token } });
    await app.inject({ url: '/me' });
    await app.close();
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed).toHaveLength(2);
    expect(completed[0]).toMatchObject({
      userId: 'u-log',
      requestId: signedIn.headers['x-request-id'],
      statusCode: 200,
      url: '/me',
    });
    expect(completed[1]).not.toHaveProperty('userId');
    expect(completed[1]).toMatchObject({ statusCode: 401 });
  });

  it('requireActor gives commands the caller, profile and request id only, and a 401 to a service', async () => {
    const app = await createApp({ service: 'test', logLevel: 'silent' });
    await app.register(identity, { secret });
    app.get('/actor', async (request) => requireActor(request));
    const user = await mintIdentityToken(secret, {
      kind: 'user',
      userId: 'u-9',
      name: 'Ada',
      email: 'ada@example.com',
      avatarUrl: null,
      idpUid: 'idp|ada',
      roles: ['wiki-admin'],
    });
    const headers = { [IDENTITY_HEADER]: user, 'x-request-id': 'req-actor-1' };
    expect((await app.inject({ url: '/actor', headers })).json()).toEqual({
      userId: 'u-9',
      name: 'Ada',
      email: 'ada@example.com',
      avatarUrl: null,
      idpUid: 'idp|ada',
      requestId: 'req-actor-1',
    });
    const service = await mintServiceToken(secret, 'document');
    expect((await app.inject({ url: '/actor', headers: { [IDENTITY_HEADER]: service } })).statusCode).toBe(401);
    await app.close();
  });

  it('gives routes the verified user and answers 401 without one', async () => {
    const app = await build();
    const token = await mintIdentityToken(secret, { kind: 'user', userId: 'u-1' });
    expect((await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: token } })).json()).toEqual({ userId: 'u-1' });
    const none = await app.inject({ url: '/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHORIZED');
    const forged = await mintIdentityToken('forged-secret-that-is-long-enough', { kind: 'user', userId: 'u-2' });
    expect((await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: forged } })).statusCode).toBe(401);
    await app.close();
  });

  it('keeps service routes away from user credentials', async () => {
    const app = await build();
    const user = await mintIdentityToken(secret, { kind: 'user', userId: 'u-1' });
    expect((await app.inject({ url: '/internal-only', headers: { [IDENTITY_HEADER]: user } })).statusCode).toBe(403);
    const service = await mintServiceToken(secret, 'gateway');
    expect((await app.inject({ url: '/internal-only', headers: { [IDENTITY_HEADER]: service } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/me', headers: { [IDENTITY_HEADER]: service } })).statusCode).toBe(401);
    await app.close();
  });
});
