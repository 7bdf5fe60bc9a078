import { SignJWT } from 'jose';
import { forwardedIdentity, mcpKeyOf, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp, tamperedToken, unsignedToken } from './helpers/idp.js';

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

const ada = { sub: 'idp-ada', email: 'ada@example.com', name: 'Ada Lovelace', picture: 'https://img.example/ada.png' };

function get(url: string, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: 'GET', url, headers });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectUnauthorized(res: Awaited<ReturnType<typeof get>>) {
  expect(res.statusCode).toBe(401);
  const body = res.json();
  expect(body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  expect(body.error.requestId).toBe(res.headers['x-request-id']);
}

describe('bearer tokens (oidc)', () => {
  it('forwards a valid RS256 token as a verifiable identity carrying the local user id', async () => {
    const res = await get('/api/v1/workspaces', bearer(await idp.mint(ada)));
    expect(res.statusCode).toBe(200);
    const echoed = res.json().data;
    expect(echoed.service).toBe('workspace');
    expect(echoed.url).toBe('/api/v1/workspaces');

    const identity = await forwardedIdentity(gw, echoed.headers);
    const local = gw.users.get('idp-ada')!;
    expect(local).toBeDefined();
    expect(identity).toMatchObject({
      kind: 'user',
      userId: local.id,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      avatarUrl: 'https://img.example/ada.png',
      idpUid: 'idp-ada',
    });
    expect(gw.resolveCalls.at(-1)).toEqual({
      idpUid: 'idp-ada',
      email: 'ada@example.com',
      emailVerified: false, // the token has no email_verified claim, and AUTH_EMAIL_VERIFIED_DEFAULT is false
      name: 'Ada Lovelace',
      avatarUrl: 'https://img.example/ada.png',
    });
    // The credential the gateway consumed does not travel on.
    expect(echoed.headers.authorization).toBeUndefined();
  });

  it('accepts ES256 tokens and takes the name from preferred_username when name is absent', async () => {
    const token = await idp.mint(
      { sub: 'idp-grace', email: 'grace@example.com', preferred_username: 'grace' },
      { alg: 'ES256' },
    );
    const res = await get('/api/v1/users/me', bearer(token));
    expect(res.statusCode).toBe(200);
    const identity = await forwardedIdentity(gw, res.json().data.headers);
    expect(identity).toMatchObject({
      kind: 'user',
      userId: gw.users.get('idp-grace')!.id,
      name: 'grace',
      avatarUrl: null,
    });
  });

  it('forwards realm roles and the configured client roles', async () => {
    const token = await idp.mint({
      ...ada,
      sub: 'idp-roles',
      realm_access: { roles: ['wiki-admin', 'offline_access'] },
      resource_access: { 'wiki-web': { roles: ['editor'] }, 'other-client': { roles: ['ignored'] } },
    });
    const res = await get('/api/v1/workspaces', bearer(token));
    const identity = await forwardedIdentity(gw, res.json().data.headers);
    expect(identity.roles?.sort()).toEqual(['editor', 'offline_access', 'wiki-admin']);
  });

  it('strips a spoofed x-wiki-identity and every other inbound x-wiki-* header', async () => {
    const { mintIdentityToken } = await import('@wiki/auth');
    const forged = await mintIdentityToken(gw.config.internalTokenSecret, { kind: 'internal' });
    // Without a credential the spoofed header gets nowhere.
    expectUnauthorized(await get('/api/v1/workspaces', { 'x-wiki-identity': forged }));
    // With one, the gateway's own identity replaces it.
    const res = await get('/api/v1/workspaces', {
      ...bearer(await idp.mint(ada)),
      'x-wiki-identity': forged,
      'X-Wiki-Role': 'OWNER',
    });
    const headers = res.json().data.headers;
    expect(headers['x-wiki-role']).toBeUndefined();
    expect(headers['x-wiki-identity']).not.toBe(forged);
    expect((await forwardedIdentity(gw, headers)).kind).toBe('user');
  });

  it('sends the request being served along when it asks the workspace service', async () => {
    const res = await get('/api/v1/workspaces', {
      ...bearer(await idp.mint({ ...ada, sub: 'idp-traced' })),
      'x-request-id': 'req-gw-1',
    });
    expect(res.statusCode).toBe(200);
    expect(gw.internalRequestIds.at(-1)).toBe('req-gw-1');
  });

  it('refuses a sign-in the workspace service refuses (400, 409) with 401; its failure is a 503', async () => {
    gw.resolveStatus.set('idp-clash', 409).set('idp-odd', 400).set('idp-broken', 500).set('idp-denied', 403);
    for (const sub of ['idp-clash', 'idp-odd']) {
      const res = await get('/api/v1/workspaces', bearer(await idp.mint({ ...ada, sub })));
      expectUnauthorized(res);
      expect(res.json().error.message).toBe('The account could not be signed in');
    }
    // A 403 means the workspace service does not take the gateway's token: not the user's fault.
    for (const sub of ['idp-broken', 'idp-denied']) {
      const res = await get('/api/v1/workspaces', bearer(await idp.mint({ ...ada, sub })));
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', requestId: res.headers['x-request-id'] },
      });
    }
  });

  it('caches the find-or-create answer instead of calling the workspace service per request', async () => {
    const token = await idp.mint({ ...ada, sub: 'idp-cached' });
    for (let i = 0; i < 3; i++) expect((await get('/api/v1/workspaces', bearer(token))).statusCode).toBe(200);
    expect(gw.resolveCalls.filter((c) => c.idpUid === 'idp-cached')).toHaveLength(1);
  });

  it.each([
    ['no Authorization header', async () => ({})],
    ['a non-Bearer scheme', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    ['garbage', async () => bearer('not-a-jwt')],
    ['an expired token', async () => bearer(await idp.mint(ada, { expiresIn: -120 }))],
    ['a wrong issuer', async () => bearer(await idp.mint(ada, { issuer: 'https://evil.example/realms/test' }))],
    ['a wrong audience', async () => bearer(await idp.mint(ada, { audience: 'someone-else' }))],
    ['no audience', async () => bearer(await idp.mint(ada, { audience: null }))],
    [
      'alg none',
      async () =>
        bearer(unsignedToken({ ...ada, iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 600 })),
    ],
    [
      'HS256 signed with the public key material',
      async () =>
        bearer(
          await new SignJWT({ ...ada })
            .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
            .setIssuer(idp.issuer)
            .setAudience(idp.audience)
            .setExpirationTime('10m')
            .sign(new TextEncoder().encode(idp.publicPem)),
        ),
    ],
    ['a tampered payload', async () => bearer(tamperedToken(await idp.mint(ada), (c) => ({ ...c, sub: 'idp-admin' })))],
    ['an unknown kid', async () => bearer(await idp.mint(ada, { kid: 'nobody-knows-me', foreignKey: true }))],
    [
      'a key the provider does not publish under a known kid',
      async () => bearer(await idp.mint(ada, { foreignKey: true })),
    ],
    ['a token without a subject', async () => bearer(await idp.mint({ email: 'nosub@example.com' }))],
  ])('refuses %s with a 401 envelope', async (_case, headers) => {
    const before = gw.fakes.workspace.requests.length;
    const res = await get('/api/v1/workspaces', await headers());
    expectUnauthorized(res);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(gw.fakes.workspace.requests.length).toBe(before);
  });
});

describe('public routes', () => {
  it.each([
    ['GET', '/api/v1/public/documents/0b6c8a51-7d52-4b8e-9d8f-2f1d4f0d7a11', 'document'],
    ['GET', '/api/v1/public/documents/0b6c8a51-7d52-4b8e-9d8f-2f1d4f0d7a11/children', 'document'],
    ['GET', '/api/v1/invitations/tok-123/info', 'workspace'],
    ['GET', '/api/v1/email/unsubscribe?token=u1.abc', 'workspace'],
    ['POST', '/api/v1/email/unsubscribe?token=u1.abc', 'workspace'],
  ])('%s %s reaches the %s service without a credential and without an identity', async (method, url, service) => {
    const res = await gw.app.inject({ method: method as 'GET', url, headers: { 'x-wiki-identity': 'spoofed' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.service).toBe(service);
    expect(res.json().data.headers['x-wiki-identity']).toBeUndefined();
  });

  it('keeps accepting and declining an invitation behind a Bearer token', async () => {
    expectUnauthorized(await gw.app.inject({ method: 'POST', url: '/api/v1/invitations/tok-123/accept' }));
    expectUnauthorized(await gw.app.inject({ method: 'POST', url: '/api/v1/invitations/tok-123/info' }));
  });

  it('opens exactly the unsubscribe link: its neighbours still need a Bearer token', async () => {
    for (const [method, url] of [
      ['PUT', '/api/v1/email/unsubscribe?token=u1.abc'],
      ['DELETE', '/api/v1/email/unsubscribe'],
      ['POST', '/api/v1/email/unsubscribe/again'],
      ['POST', '/api/v1/email/subscribe'],
      ['GET', '/api/v1/email'],
      ['PUT', '/api/v1/users/me/preferences'],
    ] as const)
      expectUnauthorized(await gw.app.inject({ method, url }));
  });

  it('does not let percent-encoding smuggle a protected path into a public one', async () => {
    expectUnauthorized(await get('/api/v1/%77orkspaces'));
    const traversal = await get('/api/v1/public/documents/..%2F..%2Fworkspaces');
    expect(traversal.statusCode).toBe(400);
    expect(traversal.json().error.code).toBe('VALIDATION_ERROR');
  });
});

describe('internal API key', () => {
  const path = '/api/v1/internal/documents/0b6c8a51-7d52-4b8e-9d8f-2f1d4f0d7a11/permission?userId=idp-ada';

  it('is required: missing or wrong gives 401', async () => {
    expectUnauthorized(await get(path));
    expectUnauthorized(await get(path, { 'x-internal-api-key': 'wrong-key-wrong-key' }));
    expectUnauthorized(await get(path, { 'x-internal-api-key': `${gw.config.internalApiKey}x` }));
  });

  it('forwards the right key as an internal identity, without the key itself', async () => {
    const res = await get(path, { 'x-internal-api-key': gw.config.internalApiKey });
    expect(res.statusCode).toBe(200);
    const echoed = res.json().data;
    expect(echoed.service).toBe('document');
    expect(echoed.url).toBe(path);
    expect(echoed.headers['x-internal-api-key']).toBeUndefined();
    expect(await forwardedIdentity(gw, echoed.headers)).toMatchObject({ kind: 'internal', userId: undefined });
  });

  it('is the only credential /internal accepts, and works nowhere else', async () => {
    expectUnauthorized(await get(path, bearer(await idp.mint(ada))));
    expectUnauthorized(await get('/api/v1/workspaces', { 'x-internal-api-key': gw.config.internalApiKey }));
  });
});

describe('MCP keys', () => {
  const key = mcpKeyOf('auth-test');

  beforeAll(() => {
    gw.mcpKeys.set(key, {
      id: '3f2b1c8e-9a4d-4e7b-8c1d-2a3b4c5d6e7f',
      idpUid: 'idp-mcp',
      email: 'mcp@example.com',
      name: 'Mia',
      avatarUrl: null,
    });
  });

  it('resolves a key to its user and forwards an mcp identity', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/v1/mcp/messages?sessionId=s1',
      headers: { 'x-mcp-api-key': key, 'content-type': 'application/json' },
      payload: '{"jsonrpc":"2.0"}',
    });
    expect(res.statusCode).toBe(200);
    const echoed = res.json().data;
    expect(echoed.service).toBe('mcp');
    expect(echoed.body).toBe('{"jsonrpc":"2.0"}');
    expect(echoed.headers['x-mcp-api-key']).toBeUndefined();
    const identity = await forwardedIdentity(gw, echoed.headers);
    expect(identity).toMatchObject({
      kind: 'mcp',
      userId: '3f2b1c8e-9a4d-4e7b-8c1d-2a3b4c5d6e7f',
      idpUid: 'idp-mcp',
    });
    // Which key (MCP sessions are bounded per key), as a digest that does not give the key away.
    expect(identity.keyId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(key).not.toContain(identity.keyId);
    // The Streamable HTTP endpoint sits at /mcp itself.
    expect(
      (await gw.app.inject({ method: 'GET', url: '/api/v1/mcp', headers: { 'x-mcp-api-key': key } })).json().data
        .service,
    ).toBe('mcp');
  });

  it('refuses a missing or unknown key', async () => {
    expectUnauthorized(await get('/api/v1/mcp/sse'));
    expectUnauthorized(await get('/api/v1/mcp/sse', { 'x-mcp-api-key': 'wmcp_unknown' }));
    expectUnauthorized(await get('/api/v1/mcp/sse', { 'x-mcp-api-key': mcpKeyOf('unknown') }));
  });

  it('works only on /mcp/**, and /mcp accepts nothing else', async () => {
    expectUnauthorized(await get('/api/v1/workspaces', { 'x-mcp-api-key': key }));
    expectUnauthorized(await get('/api/v1/internal/documents/x/permission', { 'x-mcp-api-key': key }));
    expectUnauthorized(await get('/api/v1/mcp/sse', bearer(await idp.mint(ada))));
    expectUnauthorized(await get('/api/v1/mcp/sse', { 'x-internal-api-key': gw.config.internalApiKey }));
  });
});
