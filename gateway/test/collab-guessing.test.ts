import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeCollab, upgrade } from './helpers/collab.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

/**
 * Issue 11, point 4: the collab WebSocket sign-in spends the same guessing budget as REST. A token
 * sent with the upgrade, and the provider's in-protocol token that the collaboration server has
 * the gateway verify, count against the client's address as REST derives it (here behind a
 * trusted proxy, so X-Forwarded-For names the client); once spent, even a valid token gets 429.
 */
const FAILURES = 3;

let idp: TestIdp;
let gw: TestGateway;
let collab: Awaited<ReturnType<typeof startFakeCollab>>;
let base: string;

beforeAll(async () => {
  idp = await startIdp();
  collab = await startFakeCollab();
  gw = await startTestGateway({
    idp,
    env: {
      COLLAB_URL: collab.url,
      RATE_LIMIT_ENABLED: 'true',
      // The other budgets are far away, so that only the guessing budget can answer 429 here.
      RATE_LIMIT_USER_PER_MIN: '1000',
      RATE_LIMIT_PUBLIC_PER_MIN: '1000',
      RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(FAILURES),
    },
    deps: { trustProxy: '127.0.0.1' },
  });
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await gw?.close();
  collab?.server.close();
  await idp?.close();
});

let nextIp = 1;
/** Each test speaks from its own client address, so the per-address budgets do not mix. */
const freshIp = () => `10.7.0.${nextIp++}`;

/** A WebSocket upgrade through the gateway from `ip` (behind the trusted proxy 127.0.0.1). */
async function upgradeFrom(ip: string, path: string, headers: Record<string, string> = {}) {
  const { status, headers: answered, socket } = await upgrade(base, path, { 'x-forwarded-for': ip, ...headers });
  socket?.destroy();
  return { status, headers: answered };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The collaboration server asking the gateway to verify an editor's in-protocol token. */
function identity(token: string, clientAddress?: string) {
  return gw.app.inject({
    method: 'POST',
    url: '/api/v1/internal/collab/identity',
    headers: { 'x-internal-api-key': gw.config.internalApiKey },
    payload: clientAddress ? { token, clientAddress } : { token },
  });
}

function expectRetryAfter(headers: IncomingHttpHeaders) {
  const retryAfter = Number(headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('the collab sign-in and the budget of refused credentials', () => {
  it('counts refused upgrade tokens (header or ?token=); once spent, even a valid one gets 429 unchecked', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp|upgrader', email: 'upgrader@example.com' });
    expect((await upgradeFrom(ip, '/collab', bearer(`${valid}x`))).status).toBe(401);
    expect((await upgradeFrom(ip, `/collab?token=${valid}x`)).status).toBe(401);
    expect((await upgradeFrom(ip, '/api/v1/collab', bearer('not-even-a-jwt'))).status).toBe(401);

    const before = collab.seen.length;
    const limited = await upgradeFrom(ip, '/collab', bearer(valid));
    expect(limited.status).toBe(429);
    expectRetryAfter(limited.headers);
    // Without a token too: the in-protocol one would be a guess all the same.
    expect((await upgradeFrom(ip, '/collab')).status).toBe(429);
    expect(collab.seen.length).toBe(before);
    // The same budget as REST, against the same address.
    const rest = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { ...bearer(valid), 'x-forwarded-for': ip },
      remoteAddress: '127.0.0.1',
    });
    expect(rest.statusCode).toBe(429);

    // Another address is not affected, and is passed on to collab as the gateway derived it.
    const other = freshIp();
    expect((await upgradeFrom(other, '/collab', { ...bearer(valid), 'x-wiki-client-address': ip })).status).toBe(101);
    expect(collab.seen.at(-1)!.headers['x-wiki-client-address']).toBe(other);
  });

  it('REST refusals spend the upgrade budget too', async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES; i++) {
      const res = await gw.app.inject({
        method: 'GET',
        url: '/api/v1/workspaces',
        headers: { ...bearer(`guess-${i}`), 'x-forwarded-for': ip },
        remoteAddress: '127.0.0.1',
      });
      expect(res.statusCode).toBe(401);
    }
    expect((await upgradeFrom(ip, '/collab')).status).toBe(429);
  });

  it('counts refused in-protocol tokens against the editor address collab passes back', async () => {
    const editor = freshIp();
    const valid = await idp.mint({ sub: 'idp|in-protocol', email: 'in-protocol@example.com', name: 'Ina' });
    expect((await identity(valid, editor)).statusCode).toBe(200);
    for (let i = 0; i < FAILURES; i++) expect((await identity(`${valid}${i}`, editor)).statusCode).toBe(401);

    const resolvesBefore = gw.resolveCalls.length;
    const limited = await identity(valid, editor);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expectRetryAfter(limited.headers as IncomingHttpHeaders);
    expect(gw.resolveCalls.length).toBe(resolvesBefore);
    // The editor cannot open another socket either; other editors (and collab itself) go on.
    expect((await upgradeFrom(editor, '/collab')).status).toBe(429);
    expect((await identity(valid, freshIp())).statusCode).toBe(200);
    expect((await upgradeFrom(freshIp(), '/collab')).status).toBe(101);
  });

  it('a collab server that passes no address (the previous release) is not limited by anyone', async () => {
    const valid = await idp.mint({ sub: 'idp|old-collab', email: 'old-collab@example.com' });
    for (let i = 0; i <= FAILURES; i++) expect((await identity(`${valid}${i}`)).statusCode).toBe(401);
    expect((await identity(valid)).statusCode).toBe(200);
  });
});
