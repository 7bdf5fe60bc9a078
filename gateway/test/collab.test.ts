import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startFakeCollab, upgrade } from './helpers/collab.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { closedUrl } from './helpers/upstreams.js';

describe('gateway: the /collab WebSocket upgrade, CORS and the collab identity route', () => {
  let idp: TestIdp;
  let gw: TestGateway;
  let collab: Awaited<ReturnType<typeof startFakeCollab>>;
  let base: string;

  beforeAll(async () => {
    idp = await startIdp();
    collab = await startFakeCollab();
    gw = await startTestGateway({
      idp,
      env: { COLLAB_URL: collab.url, CORS_ORIGINS: 'https://app.example.com' },
    });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gw?.close();
    collab?.server.close();
    await idp?.close();
  });

  it('pipes the upgrade to the collaboration server, without forged identity headers, both ways', async () => {
    const token = await idp.mint({ sub: 'idp|piper', email: 'piper@example.com', name: 'Piper' });
    const res = await upgrade(base, '/collab?x=1', {
      'x-wiki-identity': 'forged',
      'x-request-id': 'req-collab-1',
      authorization: `Bearer ${token}`,
    });
    expect(res.status).toBe(101);
    expect(res.headers['x-fake']).toBe('collab');
    const last = collab.seen.at(-1)!;
    expect(last.url).toBe('/collab?x=1');
    expect(last.headers['x-wiki-identity']).toBeUndefined();
    expect(last.headers.authorization).toBeUndefined();
    expect(last.headers['x-request-id']).toBe('req-collab-1');
    expect(last.headers['x-forwarded-for']).toBe('127.0.0.1');
    const socket = res.socket!;
    socket.write('ping through the gateway');
    const [echo] = await once(socket, 'data');
    expect(String(echo)).toBe('ping through the gateway');
    socket.destroy();
  });

  it('lets browsers in from the own origin or CORS_ORIGINS only; other paths are 404', async () => {
    const before = collab.seen.length;
    expect((await upgrade(base, '/collab', { origin: 'https://evil.example.com' })).status).toBe(403);
    expect(collab.seen.length).toBe(before);
    const listed = await upgrade(base, '/collab', { origin: 'https://app.example.com' });
    expect(listed.status).toBe(101);
    listed.socket!.destroy();
    const own = await upgrade(base, '/collab', { origin: base });
    expect(own.status).toBe(101);
    own.socket!.destroy();
    expect((await upgrade(base, '/api/v1/documents')).status).toBe(404);
  });

  it('checks a token sent with the upgrade (header or ?token=) like a REST request', async () => {
    const token = await idp.mint({ sub: 'idp|grace', email: 'grace@example.com', name: 'Grace' });
    const before = collab.seen.length;
    expect((await upgrade(base, '/collab', { authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await upgrade(base, `/collab?token=${token}x`)).status).toBe(401);
    expect(collab.seen.length).toBe(before);
    for (const res of [
      await upgrade(base, '/collab', { authorization: `Bearer ${token}` }),
      await upgrade(base, `/collab?token=${encodeURIComponent(token)}`),
    ]) {
      expect(res.status).toBe(101);
      res.socket!.destroy();
    }
    expect(collab.seen.at(-1)!.headers.authorization).toBeUndefined();
    expect(collab.seen.at(-1)!.url).toBe('/collab');
  });

  it('answers 503 when the collaboration server cannot be reached', async () => {
    const down = await startTestGateway({ idp, env: { COLLAB_URL: await closedUrl() } });
    try {
      await down.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(down.app.server.address() as AddressInfo).port}`;
      expect((await upgrade(url, '/collab')).status).toBe(503);
    } finally {
      await down.close();
    }
  });

  it('answers CORS preflights and requests of listed origins only', async () => {
    const preflight = await gw.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/workspaces',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('PUT');

    const listed = await gw.app.inject({
      method: 'GET',
      url: '/actuator/health',
      headers: { origin: 'https://app.example.com' },
    });
    expect(listed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    // What a page on the allowed origin may read of an answer: a search's total among them.
    const exposed = String(listed.headers['access-control-expose-headers']).split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'retry-after', 'x-total-count']));
    const other = await gw.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/workspaces',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.statusCode).not.toBe(204);
  });

  it('verifies a provider token for the collaboration server (internal key only)', async () => {
    const token = await idp.mint({ sub: 'idp|ada', email: 'ada@example.com', email_verified: true, name: 'Ada' });
    const ask = (body: unknown, key = gw.config.internalApiKey) =>
      gw.app.inject({
        method: 'POST',
        url: '/api/v1/internal/collab/identity',
        headers: key ? { 'x-internal-api-key': key } : {},
        payload: body as object,
      });
    const ok = await ask({ token });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      success: true,
      data: { id: gw.users.get('idp|ada')!.id, name: 'Ada', email: 'ada@example.com', idpUid: 'idp|ada' },
    });
    expect((await ask({ token: `${token}x` })).statusCode).toBe(401);
    expect((await ask({})).json().error.code).toBe('VALIDATION_ERROR');
    expect((await ask({ token }, '')).statusCode).toBe(401);
    const asUser = await gw.app.inject({
      method: 'POST',
      url: '/api/v1/internal/collab/identity',
      headers: { authorization: `Bearer ${token}` },
      payload: { token },
    });
    expect(asUser.statusCode).toBe(401);
  });
});
