import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { UPGRADE_TICKET_HEADER } from '@wiki/auth';
import { startFakeCollab, upgrade } from './helpers/collab.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { countSignatureChecks, startIdp, type TestIdp } from './helpers/idp.js';

/**
 * The collab WebSocket sign-in spends the same guessing budget as REST, without lockouts
 * (ARCHITECTURE 5.13, 5.14). A token sent with the upgrade, and the provider's in-protocol token
 * that the collaboration server has the gateway verify, count against the client's address as REST
 * derives it (here behind a trusted proxy, so X-Forwarded-For names the client); an upgrade
 * without a token counts until a valid in-protocol token redeems its ticket. Over budget, valid
 * tokens are served and failing ones get 429.
 */
const FAILURES = 3;
/** Short, so that a socket that never sends a token is seen closed within the test. */
const AWAITING = { perAddress: 2, deadlineMs: 1_500, pollMs: 100 };

let idp: TestIdp;
let gw: TestGateway;
let collab: Awaited<ReturnType<typeof startFakeCollab>>;
let base: string;
let signatures: ReturnType<typeof countSignatureChecks>;
const sockets: Socket[] = [];

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
    deps: { trustProxy: '127.0.0.1', awaitingToken: AWAITING },
  });
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  signatures = countSignatureChecks();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
afterAll(async () => {
  signatures?.restore();
  await gw?.close();
  collab?.server.close();
  await idp?.close();
});

let nextIp = 1;
/** Each test speaks from its own client address, so the per-address budgets do not mix. */
const freshIp = () => `10.7.0.${nextIp++}`;

/**
 * A WebSocket upgrade through the gateway from `ip` (behind the trusted proxy 127.0.0.1); the
 * socket is kept open until the test ends, and the ticket collab received comes back with it.
 */
async function upgradeFrom(ip: string, path: string, headers: Record<string, string> = {}) {
  const seenBefore = collab.seen.length;
  const { status, headers: answered, socket } = await upgrade(base, path, { 'x-forwarded-for': ip, ...headers });
  if (socket) sockets.push(socket);
  const passed = collab.seen.length > seenBefore ? collab.seen.at(-1)!.headers : undefined;
  return { status, headers: answered, socket, ticket: passed?.[UPGRADE_TICKET_HEADER] as string | undefined };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const forged = (sub: string) => idp.mint({ sub, email: `${sub}@example.com` }, { foreignKey: true });

/** A REST request from `ip` behind the trusted proxy. */
function rest(ip: string, token: string) {
  return gw.app.inject({
    method: 'GET',
    url: '/api/v1/workspaces',
    headers: { ...bearer(token), 'x-forwarded-for': ip },
    remoteAddress: '127.0.0.1',
  });
}

/** The collaboration server asking the gateway to verify an editor's in-protocol token. */
function identity(token: string, clientAddress?: string, upgradeTicket?: string) {
  return gw.app.inject({
    method: 'POST',
    url: '/api/v1/internal/collab/identity',
    headers: { 'x-internal-api-key': gw.config.internalApiKey },
    payload: { token, clientAddress, upgradeTicket },
  });
}

function expectRetryAfter(headers: IncomingHttpHeaders, seconds?: number) {
  const retryAfter = Number(headers['retry-after']);
  if (seconds !== undefined) expect(retryAfter).toBe(seconds);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

/** Spends the budget of `ip` with forged REST tokens. */
async function spend(ip: string) {
  for (let i = 0; i < FAILURES; i++)
    expect((await rest(ip, await forged(`idp|spend-${ip}-${i}`))).statusCode).toBe(401);
}

describe('collab upgrades with a token and the budget of refused credentials', () => {
  it('counts refused upgrade tokens; over budget a valid one still opens and a failing one gets 429 unchecked', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp|upgrader', email: 'upgrader@example.com' });
    expect((await upgradeFrom(ip, '/collab', bearer(await forged('idp|up-1')))).status).toBe(401);
    expect((await upgradeFrom(ip, `/collab?token=${await forged('idp|up-2')}`)).status).toBe(401);
    expect((await upgradeFrom(ip, '/api/v1/collab', bearer('not-even-a-jwt'))).status).toBe(401);

    // Over budget: the valid token opens the socket, and REST serves it too.
    const opened = await upgradeFrom(ip, '/collab', bearer(valid));
    expect(opened.status).toBe(101);
    expect(opened.ticket).toBeUndefined();
    expect((await rest(ip, valid)).statusCode).toBe(200);

    const before = { signatures: signatures.count(), seen: collab.seen.length };
    const limited = await upgradeFrom(ip, '/collab', bearer('not-even-a-jwt'));
    expect(limited.status).toBe(429);
    expectRetryAfter(limited.headers);
    expect(
      (await upgradeFrom(ip, `/collab?token=${await idp.mint({ sub: 'idp|x' }, { audience: 'other' })}`)).status,
    ).toBe(429);
    expect(signatures.count()).toBe(before.signatures);
    expect(collab.seen.length).toBe(before.seen);

    // Another address is not affected, and is passed on to collab as the gateway derived it.
    const other = freshIp();
    expect((await upgradeFrom(other, '/collab', bearer(await forged('idp|up-other')))).status).toBe(401);
    expect((await upgradeFrom(other, '/collab', { ...bearer(valid), 'x-wiki-client-address': ip })).status).toBe(101);
    expect(collab.seen.at(-1)!.headers['x-wiki-client-address']).toBe(other);
  });

  it('shares the budget with REST: REST refusals make a failing upgrade token a 429', async () => {
    const ip = freshIp();
    await spend(ip);
    expect((await upgradeFrom(ip, '/collab', bearer('not-even-a-jwt'))).status).toBe(429);
  });
});

describe('collab upgrades without a token', () => {
  it('count as refused credentials', async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES; i++) {
      const opened = await upgradeFrom(ip, '/collab');
      expect(opened.status).toBe(101);
      expect(opened.ticket).toMatch(/^[0-9a-f-]{36}$/);
    }
    // The budget is spent: the next refused credential from the address is a 429.
    const res = await rest(ip, await forged('idp|after-bare-upgrades'));
    expect(res.statusCode).toBe(429);
  });

  it('cost nothing once a valid in-protocol token redeems their ticket (once, for their own address)', async () => {
    const ip = freshIp();
    const valid = await idp.mint({ sub: 'idp|editor', email: 'editor@example.com', name: 'Eda' });
    for (let i = 0; i < FAILURES + 2; i++) {
      const { status, ticket } = await upgradeFrom(ip, '/collab');
      expect(status).toBe(101);
      expect((await identity(valid, ip, ticket)).statusCode).toBe(200);
    }
    expect((await rest(ip, await forged('idp|editor-typo'))).statusCode).toBe(401);

    // Redeemed twice, or claimed for another address, a ticket takes back one count at most.
    const twice = freshIp();
    const first = await upgradeFrom(twice, '/collab');
    await upgradeFrom(twice, '/collab');
    expect((await identity(valid, twice, first.ticket)).statusCode).toBe(200);
    expect((await identity(valid, twice, first.ticket)).statusCode).toBe(200);
    const stranger = await upgradeFrom(freshIp(), '/collab');
    expect((await identity(valid, twice, stranger.ticket)).statusCode).toBe(200);
    // One count left from the second upgrade: two refusals fill the budget, the third is over it.
    for (let i = 0; i < FAILURES - 1; i++)
      expect((await rest(twice, await forged(`idp|twice-${i}`))).statusCode).toBe(401);
    expect((await rest(twice, await forged('idp|twice-over'))).statusCode).toBe(429);
  });

  it('and a refused in-protocol token on such a socket count once together, not twice', async () => {
    const ip = freshIp();
    const { ticket } = await upgradeFrom(ip, '/collab');
    expect((await identity(await forged('idp|socket-guess'), ip, ticket)).statusCode).toBe(401);
    // One count so far: two more refusals fill the budget, the next one is over it.
    for (let i = 0; i < FAILURES - 1; i++)
      expect((await rest(ip, await forged(`idp|settled-${i}`))).statusCode).toBe(401);
    expect((await rest(ip, await forged('idp|settled-over'))).statusCode).toBe(429);
  });

  it('over budget, wait in a few slots for their token; a socket that sends none is closed', async () => {
    const ip = freshIp();
    await spend(ip);
    const redeemed = await upgradeFrom(ip, '/collab');
    const silent = await upgradeFrom(ip, '/collab');
    expect([redeemed.status, silent.status]).toEqual([101, 101]);
    const full = await upgradeFrom(ip, '/collab');
    expect(full.status).toBe(429);
    expectRetryAfter(full.headers, 1);

    // A valid in-protocol token is served over budget, and frees its socket's slot.
    const valid = await idp.mint({ sub: 'idp|slotted', email: 'slotted@example.com' });
    expect((await identity(valid, ip, redeemed.ticket)).statusCode).toBe(200);
    await vi.waitFor(async () => expect((await upgradeFrom(ip, '/collab')).status).toBe(101), {
      timeout: 5_000,
      interval: 200,
    });

    // The socket that never sent a token is closed by its deadline; the redeemed one stays open.
    const closed = once(silent.socket!, 'close');
    await closed;
    expect(redeemed.socket!.destroyed).toBe(false);
    redeemed.socket!.write('still here');
    const [echo] = await once(redeemed.socket!, 'data');
    expect(String(echo)).toBe('still here');
  });
});

describe('the in-protocol token and the budget of refused credentials', () => {
  it('counts refusals against the editor address collab passes back; over budget a valid token is served', async () => {
    const editor = freshIp();
    const valid = await idp.mint({ sub: 'idp|in-protocol', email: 'in-protocol@example.com', name: 'Ina' });
    expect((await identity(valid, editor)).statusCode).toBe(200);
    for (let i = 0; i < FAILURES; i++)
      expect((await identity(await forged(`idp|ip-${i}`), editor)).statusCode).toBe(401);

    expect((await identity(valid, editor)).statusCode).toBe(200);
    const before = signatures.count();
    const limited = await identity('not-even-a-jwt', editor);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expectRetryAfter(limited.headers as IncomingHttpHeaders);
    expect(signatures.count()).toBe(before);
    // Other editors (and collab itself) go on.
    expect((await identity(await forged('idp|ip-other'), freshIp())).statusCode).toBe(401);
  });

  it('a collab server that passes no address (the previous release) is not limited by anyone', async () => {
    const valid = await idp.mint({ sub: 'idp|old-collab', email: 'old-collab@example.com' });
    for (let i = 0; i <= FAILURES; i++) expect((await identity(`${valid}${i}`)).statusCode).toBe(401);
    expect((await identity(valid)).statusCode).toBe(200);
  });
});
