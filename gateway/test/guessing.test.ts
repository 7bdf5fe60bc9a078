import type { IncomingMessage } from 'node:http';
import { SignJWT } from 'jose';
import { buildApp } from '../src/app.js';
import { mcpKeyOf, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { countSignatureChecks, startIdp, type TestIdp, unsignedToken } from './helpers/idp.js';

/**
 * Guessing credentials costs, but locks nobody out (ARCHITECTURE 5.13): refused credentials have
 * their own per-IP budget in Redis; once it is spent, a credential that fails is answered 429
 * without a signature check or a lookup, and a valid one is still served.
 */
const FAILURES = 3;

let idp: TestIdp;
let gw: TestGateway;
let signatures: ReturnType<typeof countSignatureChecks>;
/** Every `/internal/mcp-keys/resolve` call the fake workspace service received. */
const mcpLookups: string[] = [];
/** While set, MCP key lookups wait for it before the fake workspace service answers. */
let holdLookups: Promise<void> | undefined;

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
  gw.fakes.workspace.on(async (req: IncomingMessage) => {
    if (req.url !== '/internal/mcp-keys/resolve') return false;
    mcpLookups.push(String(req.headers['x-request-id']));
    await holdLookups;
    return false; // the helper's own handler answers
  });
  signatures = countSignatureChecks();
});
afterAll(async () => {
  signatures?.restore();
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
const mcpKey = (key: string) => ({ 'x-mcp-api-key': key });
const INTERNAL_URL = '/api/v1/internal/documents/d/collab-state';

function expectLimited(res: Awaited<ReturnType<typeof get>>, retryAfter?: number) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
  const seconds = Number(res.headers['retry-after']);
  if (retryAfter !== undefined) expect(seconds).toBe(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
}

/** A token signed by the provider's key id with another key: only its signature gives it away. */
const forged = (sub: string) => idp.mint({ sub, email: `${sub}@example.com` }, { foreignKey: true });

/** Spends the budget of `ip` with forged tokens (each one signature check, then a 401). */
async function spend(ip: string): Promise<void> {
  for (let i = 0; i < FAILURES; i++) {
    expect((await get('/api/v1/workspaces', ip, bearer(await forged(`idp-spender-${i}`)))).statusCode).toBe(401);
  }
}

describe('an address over its budget of refused credentials', () => {
  it('is still served with a valid Bearer token; failing ones get 429 without a signature check', async () => {
    const ip = freshIp();
    const repeated = await forged('idp-repeated');
    expect((await get('/api/v1/workspaces', ip, bearer(repeated))).statusCode).toBe(401);
    for (let i = 1; i < FAILURES; i++) {
      expect((await get('/api/v1/workspaces', ip, bearer(await forged(`idp-guess-${i}`)))).statusCode).toBe(401);
    }

    // A token nobody checked before: one signature check, and served.
    const valid = await idp.mint({ sub: 'idp-behind-the-nat', email: 'nat@example.com' });
    const resolvesBefore = gw.resolveCalls.length;
    expect((await get('/api/v1/workspaces', ip, bearer(valid))).statusCode).toBe(200);
    expect(gw.resolveCalls.length).toBe(resolvesBefore + 1);
    expect((await get('/api/v1/workspaces', ip, bearer(valid))).statusCode).toBe(200);

    // What the screening can tell is wrong: 429 at once, no signature checked, no key fetched.
    // (An unknown key id from an address under budget first: jose fetches the key set again unless
    // it just did, and will not for the next 30 s, so the screening can tell that key id is unknown.)
    const unknownKid = await idp.mint({ sub: 'idp-unknown-kid' }, { kid: 'rsa-never-published' });
    expect((await get('/api/v1/workspaces', freshIp(), bearer(unknownKid))).statusCode).toBe(401);
    const before = { signatures: signatures.count(), fetches: idp.jwksFetches(), resolves: gw.resolveCalls.length };
    const hs256 = await new SignJWT({ sub: 'idp-hs' })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setIssuer(idp.issuer)
      .setAudience(idp.audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(idp.publicPem));
    const failing = [
      'not-even-a-jwt',
      unsignedToken({ sub: 'idp-none', iss: idp.issuer, aud: idp.audience, exp: Date.now() / 1000 + 300 }),
      hs256,
      await idp.mint({ sub: 'idp-elsewhere' }, { issuer: 'https://elsewhere.example.com' }),
      await idp.mint({ sub: 'idp-other-app' }, { audience: 'another-app' }),
      unknownKid,
      repeated, // refused by its signature before: remembered
    ];
    for (const token of failing) expectLimited(await get('/api/v1/workspaces', ip, bearer(token)));
    expect(signatures.count()).toBe(before.signatures);
    expect(idp.jwksFetches()).toBe(before.fetches);
    expect(gw.resolveCalls.length).toBe(before.resolves);

    // A forged token only its signature gives away: checked (one slot), refused with 429 all the same.
    expectLimited(await get('/api/v1/workspaces', ip, bearer(await forged('idp-one-more'))));
    expect(signatures.count()).toBe(before.signatures + 1);

    // Another address is not affected: its bad token is a 401, its valid one a 200.
    const other = freshIp();
    expect((await get('/api/v1/workspaces', other, bearer(await forged('idp-neighbour')))).statusCode).toBe(401);
    expect((await get('/api/v1/workspaces', other, bearer(valid))).statusCode).toBe(200);
  });

  it('is still served with a valid MCP key; failing keys get 429 without a lookup', async () => {
    const ip = freshIp();
    const lookupsBefore = mcpLookups.length;
    for (let i = 0; i < FAILURES; i++) {
      expect((await get('/api/v1/mcp/sse', ip, mcpKey(mcpKeyOf(`unknown-${i}`)))).statusCode).toBe(401);
    }
    expect(mcpLookups.length - lookupsBefore).toBe(FAILURES);

    const valid = mcpKeyOf('valid-behind-the-nat');
    gw.mcpKeys.set(valid, { id: 'u-mcp-nat', idpUid: 'idp-mcp-nat', email: 'mcp-nat@example.com' });
    expect((await get('/api/v1/mcp/sse', ip, mcpKey(valid))).statusCode).toBe(200);
    expect(mcpLookups.length - lookupsBefore).toBe(FAILURES + 1);

    // Not of the shape of a key, or an unknown key asked about before: 429, nobody asked.
    expectLimited(await get('/api/v1/mcp/sse', ip, mcpKey('wiki_mcp_not-a-real-key')));
    expectLimited(await get('/api/v1/mcp/sse', ip, mcpKey(`${valid}x`)));
    expectLimited(await get('/api/v1/mcp/sse', ip, mcpKey(mcpKeyOf('unknown-0'))));
    expect(mcpLookups.length - lookupsBefore).toBe(FAILURES + 1);
    // A key never seen is looked up (one slot), and refused with 429.
    expectLimited(await get('/api/v1/mcp/sse', ip, mcpKey(mcpKeyOf('unknown-new'))));
    expect(mcpLookups.length - lookupsBefore).toBe(FAILURES + 2);

    // The valid key again, and the same unknown key from another address: 200, and 401.
    expect((await get('/api/v1/mcp/sse', ip, mcpKey(valid))).statusCode).toBe(200);
    expect((await get('/api/v1/mcp/sse', freshIp(), mcpKey(mcpKeyOf('unknown-0')))).statusCode).toBe(401);
  });

  it('is still served with the internal key; wrong keys get 429', async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES; i++) {
      expect((await get(INTERNAL_URL, ip, internalKey(`wrong-key-${i}`))).statusCode).toBe(401);
    }
    expectLimited(await get(INTERNAL_URL, ip, internalKey('wrong-key-again')));
    expect((await get(INTERNAL_URL, ip, internalKey(gw.config.internalApiKey))).statusCode).toBe(200);
    expectLimited(await get(INTERNAL_URL, ip, internalKey('wrong-key-once-more')));
  });

  it('checks at most two unknown credentials at a time; known ones do not wait for them', async () => {
    const ip = freshIp();
    const known = mcpKeyOf('known-while-busy');
    gw.mcpKeys.set(known, { id: 'u-mcp-busy', idpUid: 'idp-mcp-busy', email: 'busy@example.com' });
    expect((await get('/api/v1/mcp/sse', ip, mcpKey(known))).statusCode).toBe(200);
    for (let i = 0; i < FAILURES; i++) {
      expect((await get('/api/v1/mcp/sse', ip, mcpKey(mcpKeyOf(`busy-unknown-${i}`)))).statusCode).toBe(401);
    }

    let release!: () => void;
    holdLookups = new Promise((resolve) => {
      release = resolve;
    });
    try {
      const lookupsBefore = mcpLookups.length;
      const guesses = Array.from({ length: 6 }, (_, i) =>
        get('/api/v1/mcp/sse', ip, mcpKey(mcpKeyOf(`busy-guess-${i}`))),
      );
      await vi.waitFor(() => expect(mcpLookups.length - lookupsBefore).toBe(2));
      // The four beyond the two being checked were answered at once, without a lookup.
      const answered = await Promise.all(guesses.slice(2));
      for (const res of answered) expectLimited(res, 1);
      expect(mcpLookups.length - lookupsBefore).toBe(2);
      // The known key is served while the two checks wait.
      expect((await get('/api/v1/mcp/sse', ip, mcpKey(known))).statusCode).toBe(200);
      release();
      for (const res of await Promise.all(guesses.slice(0, 2))) expectLimited(res);
    } finally {
      release();
      holdLookups = undefined;
    }
  });
});

describe('expired tokens', () => {
  it('are stale sessions, not guesses: a 401 at any budget, never counted, their signature never checked', async () => {
    const ip = freshIp();
    const expired = await idp.mint({ sub: 'idp-open-tab', email: 'tab@example.com' }, { expiresIn: -3600 });
    const before = signatures.count();
    for (let i = 0; i < FAILURES * 3; i++) {
      const res = await get('/api/v1/workspaces', ip, bearer(expired));
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expect(signatures.count()).toBe(before);
    // Not counted: the address still has its whole budget.
    for (let i = 0; i < FAILURES; i++) {
      expect((await get('/api/v1/workspaces', ip, bearer(await forged(`idp-after-tab-${i}`)))).statusCode).toBe(401);
    }
    // Over budget now: an expired token is still a 401 (its client must sign in again, not wait).
    expect((await get('/api/v1/workspaces', ip, bearer(expired))).statusCode).toBe(401);
    expectLimited(await get('/api/v1/workspaces', ip, bearer('not-even-a-jwt')));
  });
});

describe('the budget of refused credentials', () => {
  it('does not count requests without any credential, nor valid ones', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp-honest', email: 'honest@example.com' });
    for (let i = 0; i < FAILURES + 2; i++) {
      expect((await get('/api/v1/workspaces', ip)).statusCode).toBe(401);
      expect((await get('/api/v1/workspaces', ip, bearer(valid))).statusCode).toBe(200);
    }
    expect((await get('/api/v1/workspaces', ip, bearer('not-even-a-jwt'))).statusCode).toBe(401);
  });

  it('counts unknown MCP keys, and a repeated unknown key calls the workspace service once', async () => {
    const ip = freshIp();
    const before = mcpLookups.length;
    const unknown = mcpKeyOf('not-a-real-key');
    for (let i = 0; i < FAILURES; i++) expect((await get('/api/v1/mcp/sse', ip, mcpKey(unknown))).statusCode).toBe(401);
    expect(mcpLookups.length - before).toBe(1);
    expectLimited(await get('/api/v1/mcp/sse', ip, mcpKey(unknown)));
    expect(mcpLookups.length - before).toBe(1);
  });

  it('is shared by the gateway replicas: a second one learns it and serves valid credentials all the same', async () => {
    // A second replica: the same configuration, so the same Redis counters, but its own memory.
    const second = await buildApp(gw.config, { redis: gw.redis });
    try {
      const ip = freshIp();
      await spend(ip);
      const onSecond = (headers: Record<string, string>, url = '/api/v1/workspaces') =>
        second.inject({ method: 'GET', url, headers, remoteAddress: ip });

      // It learns from Redis with the first refusal it counts itself...
      expectLimited(await onSecond(bearer(await forged('idp-on-second'))));
      // ...and from then on refuses what the screening can tell, unchecked.
      const before = signatures.count();
      expectLimited(await onSecond(bearer('not-even-a-jwt')));
      expectLimited(await onSecond(internalKey('wrong-key'), INTERNAL_URL));
      expect(signatures.count()).toBe(before);
      // Valid credentials are served there too.
      const valid = await idp.mint({ sub: 'idp-two-replicas', email: 'two-replicas@example.com' });
      expect((await onSecond(bearer(valid))).statusCode).toBe(200);
      expect((await onSecond(internalKey(gw.config.internalApiKey), INTERNAL_URL)).statusCode).toBe(200);
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
