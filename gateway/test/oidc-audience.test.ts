import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

/**
 * One realm, several clients: Keycloak names the client a token was issued to in `azp` and often
 * puts only `account` in `aud`. The gateway must take tokens of its own client only.
 */
let idp: TestIdp;
let byClientId: TestGateway;
let byAudience: TestGateway;

beforeAll(async () => {
  idp = await startIdp();
  // As a Keycloak deployment configures it: the client id, no separate audience.
  byClientId = await startTestGateway({ idp, env: { AUTH_AUDIENCE: '', AUTH_CLIENT_ID: 'wiki-web' } });
  byAudience = await startTestGateway({ idp, env: { AUTH_AUDIENCE: 'wiki-api', AUTH_CLIENT_ID: 'wiki-web' } });
});
afterAll(async () => {
  await byClientId?.close();
  await byAudience?.close();
  await idp?.close();
});

async function status(gw: TestGateway, token: string): Promise<number> {
  const res = await gw.app.inject({
    method: 'GET',
    url: '/api/v1/users/me',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.statusCode === 401) expect(res.json().error.code).toBe('UNAUTHORIZED');
  return res.statusCode;
}

const user = (sub: string) => ({ sub, email: `${sub}@example.com` });

describe('oidc audience from AUTH_CLIENT_ID', () => {
  it('refuses a token the same realm issued to another client', async () => {
    const other = await idp.mint({ ...user('aud-other'), azp: 'admin-console' }, { audience: 'account' });
    expect(await status(byClientId, other)).toBe(401);
    const noAudience = await idp.mint({ ...user('aud-none') }, { audience: null });
    expect(await status(byClientId, noAudience)).toBe(401);
  });

  it('accepts the client named in aud', async () => {
    const token = await idp.mint(user('aud-in-aud'), { audience: 'wiki-web' });
    expect(await status(byClientId, token)).toBe(200);
  });

  it('accepts the client named in azp only (aud is just account)', async () => {
    const token = await idp.mint({ ...user('aud-in-azp'), azp: 'wiki-web' }, { audience: 'account' });
    expect(await status(byClientId, token)).toBe(200);
  });
});

describe('oidc audience from AUTH_AUDIENCE', () => {
  it('takes AUTH_AUDIENCE over AUTH_CLIENT_ID', async () => {
    expect(await status(byAudience, await idp.mint(user('aud-api'), { audience: 'wiki-api' }))).toBe(200);
    const listed = await idp.mint(user('aud-api-list'), { audience: ['account', 'wiki-api'] as unknown as string });
    expect(await status(byAudience, listed)).toBe(200);
    const clientOnly = await idp.mint({ ...user('aud-web'), azp: 'wiki-web' }, { audience: 'account' });
    expect(await status(byAudience, clientOnly)).toBe(401);
    const other = await idp.mint({ ...user('aud-other-2'), azp: 'admin-console' }, { audience: 'account' });
    expect(await status(byAudience, other)).toBe(401);
  });
});
