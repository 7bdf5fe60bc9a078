import { loadAuthSettings, mintDevToken } from '@wiki/auth';
import { FIREBASE_JWKS_URL } from '../src/auth/providers/index.js';
import { forwardedIdentity, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

const projectId = 'wiki-test-project';

describe('firebase provider (keys from AUTH_JWKS_URL)', () => {
  let google: TestIdp;
  let gw: TestGateway;

  beforeAll(async () => {
    google = await startIdp({ issuer: () => `https://securetoken.google.com/${projectId}`, audience: projectId });
    gw = await startTestGateway({
      idp: google,
      env: {
        AUTH_PROVIDER: 'firebase',
        FIREBASE_PROJECT_ID: projectId,
        AUTH_ISSUER: '',
        AUTH_AUDIENCE: '',
        AUTH_JWKS_URL: google.jwksUrl,
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await google?.close();
  });

  it('uses the overriding key set instead of Google’s', () => {
    const { jwksUrl } = loadAuthSettings(gw.config.env);
    expect(jwksUrl).toBe(google.jwksUrl);
    expect(jwksUrl).not.toBe(FIREBASE_JWKS_URL);
  });

  it('accepts an ID token of the project and creates the local user from its claims', async () => {
    const token = await google.mint({
      sub: 'firebase-uid-1',
      email: 'fb@example.com',
      name: 'Fay',
      picture: 'https://img.example/fay.png',
    });
    const res = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(await forwardedIdentity(gw, res.json().data.headers)).toMatchObject({
      kind: 'user',
      userId: gw.users.get('firebase-uid-1')!.id,
      idpUid: 'firebase-uid-1',
      email: 'fb@example.com',
      name: 'Fay',
      avatarUrl: 'https://img.example/fay.png',
    });
  });

  it.each([
    ['another project’s issuer', { issuer: 'https://securetoken.google.com/other-project' }],
    ['another project’s audience', { audience: 'other-project' }],
    ['an expired token', { expiresIn: -3600 }],
  ])('refuses %s', async (_case, options) => {
    const token = await google.mint({ sub: 'firebase-uid-2', email: 'x@example.com' }, options);
    const res = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
  });
});

describe('dev provider', () => {
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

  it('accepts the tokens `npm run token` prints, signed with the key pair in the data folder', async () => {
    const token = await mintDevToken(gw.config.dataDir, 'Dev@Example.com', 'Dev Eloper');
    const res = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(await forwardedIdentity(gw, res.json().data.headers)).toMatchObject({
      kind: 'user',
      idpUid: 'dev|dev@example.com',
      email: 'dev@example.com',
      name: 'Dev Eloper',
    });
  });

  it('refuses tokens signed by any other key', async () => {
    const token = await other.mint(
      { sub: 'dev|dev@example.com', email: 'dev@example.com' },
      { issuer: 'wiki-dev', audience: null },
    );
    const res = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('outages on the sign-in path', () => {
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startIdp();
  });
  afterAll(async () => {
    await idp?.close();
  });

  it('answers 503, not 401, when the identity provider’s keys cannot be fetched', async () => {
    const { closedUrl } = await import('./helpers/upstreams.js');
    const gw = await startTestGateway({ idp, env: { AUTH_JWKS_URL: `${await closedUrl()}/jwks` } });
    try {
      const res = await gw.app.inject({
        method: 'GET',
        url: '/api/v1/workspaces',
        headers: { authorization: `Bearer ${await idp.mint({ sub: 'idp-x' })}` },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await gw.close();
    }
  });

  it('answers 503 when the workspace service cannot find or create the user', async () => {
    const { closedUrl } = await import('./helpers/upstreams.js');
    const gw = await startTestGateway({ idp, without: ['workspace'], env: { WORKSPACE_URL: await closedUrl() } });
    try {
      const res = await gw.app.inject({
        method: 'GET',
        url: '/api/v1/documents',
        headers: { authorization: `Bearer ${await idp.mint({ sub: 'idp-y' })}` },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', requestId: res.headers['x-request-id'] },
      });
      expect(gw.fakes.document.requests).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });
});
