import type { IncomingMessage } from 'node:http';
import { buildApp } from '../src/app.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp, tamperedToken } from './helpers/idp.js';

/**
 * Guessing credentials costs: refused credentials have their own per-IP budget in Redis, and
 * once it is spent the gateway answers 429 before looking at any credential from that IP.
 */
const FAILURES = 3;

let idp: TestIdp;
let gw: TestGateway;
/** Every `/internal/mcp-keys/resolve` call the fake workspace service received. */
const mcpLookups: string[] = [];

beforeAll(async () => {
  idp = await startIdp();
  gw = await startTestGateway({
    idp,
    env: {
      RATE_LIMIT_ENABLED: 'true',
      // The other budgets are far away, so that only the guessing budget can answer 429 here.
      RATE_LIMIT_USER_PER_MIN: '1000',
      RATE_LIMIT_PUBLIC_PER_MIN: '1000',
      RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(FAILURES),
    },
  });
  gw.fakes.workspace.on((req: IncomingMessage) => {
    if (req.url === '/internal/mcp-keys/resolve') mcpLookups.push(String(req.headers['x-request-id']));
    return false; // the helper's own handler answers
  });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

let nextIp = 1;
/** Each test speaks from its own client address, so the per-IP budgets do not mix. */
const freshIp = () => `10.9.0.${nextIp++}`;

function get(url: string, ip: string, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: 'GET', url, headers, remoteAddress: ip });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const internalKey = (key: string) => ({ 'x-internal-api-key': key });
const INTERNAL_URL = '/api/v1/internal/documents/d/collab-state';

function expectLimited(res: Awaited<ReturnType<typeof get>>) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('the budget of refused credentials', () => {
  it('answers 429 after N bad JWTs from one IP, before checking the next one, even a valid one', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp-guessed-from', email: 'guessed-from@example.com' });
    const bad = [
      tamperedToken(valid, (claims) => ({ ...claims, sub: 'idp-someone-else' })),
      await idp.mint({ sub: 'idp-expired', email: 'expired@example.com' }, { expiresIn: -3600 }),
      'not-even-a-jwt',
    ];
    for (const token of bad) expect((await get('/api/v1/workspaces', ip, bearer(token))).statusCode).toBe(401);

    const resolvesBefore = gw.resolveCalls.length;
    expectLimited(await get('/api/v1/workspaces', ip, bearer(valid)));
    expectLimited(await get('/api/v1/workspaces', ip, bearer('yet-another-guess')));
    // Not checked: the valid token was never taken to the workspace service.
    expect(gw.resolveCalls.length).toBe(resolvesBefore);

    // The same valid token from another address is fine: the budget is the IP's.
    expect((await get('/api/v1/workspaces', freshIp(), bearer(valid))).statusCode).toBe(200);
  });

  it('does not count requests without any credential, nor valid ones', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp-honest', email: 'honest@example.com' });
    for (let i = 0; i < FAILURES + 2; i++) {
      expect((await get('/api/v1/workspaces', ip)).statusCode).toBe(401);
      expect((await get('/api/v1/workspaces', ip, bearer(valid))).statusCode).toBe(200);
    }
  });

  it('budgets wrong internal keys the same whether or not correct ones were used', async () => {
    const guesser = freshIp();
    for (let i = 0; i < FAILURES; i++) {
      expect((await get(INTERNAL_URL, guesser, internalKey(`wrong-key-${i}`))).statusCode).toBe(401);
    }
    expectLimited(await get(INTERNAL_URL, guesser, internalKey('wrong-key-again')));

    // From an address that also uses the correct key: the same number of wrong keys, then 429.
    const mixed = freshIp();
    const correct = internalKey(gw.config.internalApiKey);
    for (let i = 0; i < FAILURES; i++) {
      expect((await get(INTERNAL_URL, mixed, correct)).statusCode).toBe(200);
      expect((await get(INTERNAL_URL, mixed, internalKey(`wrong-key-${i}`))).statusCode).toBe(401);
    }
    expectLimited(await get(INTERNAL_URL, mixed, internalKey('wrong-key-again')));
    // Once spent, the correct key is not looked at either (its answer would be the oracle).
    expectLimited(await get(INTERNAL_URL, mixed, correct));
  });

  it('counts unknown MCP keys, and a repeated unknown key calls the workspace service once', async () => {
    const ip = freshIp();
    const before = mcpLookups.length;
    for (let i = 0; i < FAILURES; i++) {
      const res = await get('/api/v1/mcp/sse', ip, { 'x-mcp-api-key': 'wiki_mcp_not-a-real-key' });
      expect(res.statusCode).toBe(401);
    }
    expect(mcpLookups.length - before).toBe(1);
    expectLimited(await get('/api/v1/mcp/sse', ip, { 'x-mcp-api-key': 'wiki_mcp_another-guess' }));
    expect(mcpLookups.length - before).toBe(1);

    // From a fresh address the same wrong key is still answered from memory.
    expect((await get('/api/v1/mcp/sse', freshIp(), { 'x-mcp-api-key': 'wiki_mcp_not-a-real-key' })).statusCode).toBe(
      401,
    );
    expect(mcpLookups.length - before).toBe(1);
  });

  it('lets a known MCP key through (the negative cache is only for unknown keys)', async () => {
    gw.mcpKeys.set('wiki_mcp_known-key', { id: 'u-mcp-known', idpUid: 'idp-mcp-known', email: 'k@example.com' });
    const res = await get('/api/v1/mcp/sse', freshIp(), { 'x-mcp-api-key': 'wiki_mcp_known-key' });
    expect(res.statusCode).toBe(200);
  });
});

describe('the budget of refused credentials across gateway replicas', () => {
  it('refuses, on a second replica, an address that spent its budget on the first', async () => {
    // A second replica: the same configuration, so the same Redis counters, but its own memory.
    const second = await buildApp(gw.config, { redis: gw.redis });
    try {
      const ip = freshIp();
      const valid = await idp.mint({ sub: 'idp-two-replicas', email: 'two-replicas@example.com' });
      for (let i = 0; i < FAILURES; i++) {
        expect((await get('/api/v1/workspaces', ip, bearer(`guess-${i}`))).statusCode).toBe(401);
      }
      const onSecond = (headers: Record<string, string>, url = '/api/v1/workspaces') =>
        second.inject({ method: 'GET', url, headers, remoteAddress: ip });

      // The second replica learns it from Redis with the request's own rate check...
      expectLimited(await onSecond(bearer(valid)));
      // ...and from then on refuses before looking at the credential.
      const resolvesBefore = gw.resolveCalls.length;
      expectLimited(await onSecond(bearer(valid)));
      expect(gw.resolveCalls.length).toBe(resolvesBefore);
      // The internal key, which has no rate check of its own, is refused the same way.
      expectLimited(await onSecond(internalKey(gw.config.internalApiKey), INTERNAL_URL));
    } finally {
      await second.close();
    }
  });
});

describe('the budget of refused credentials switched off', () => {
  it('is off with RATE_LIMIT_ENABLED=false like the other limits', async () => {
    const off = await startTestGateway({
      idp,
      env: { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_AUTH_FAILURES_PER_MIN: '1' },
    });
    try {
      const valid = await idp.mint({ sub: 'idp-unlimited', email: 'unlimited@example.com' });
      for (let i = 0; i < 3; i++) {
        expect((await off.app.inject({ url: '/api/v1/workspaces', headers: bearer(`bad-${i}`) })).statusCode).toBe(401);
      }
      expect((await off.app.inject({ url: '/api/v1/workspaces', headers: bearer(valid) })).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });
});
