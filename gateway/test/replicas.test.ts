import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { freePort } from '@wiki/testing';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { readBody, sendJson } from './helpers/upstreams.js';

/**
 * One replica of a service on a fixed port, so that it can be stopped and started again where the
 * gateway expects it. Its stop closes every connection at once, so a stopped replica shows up as a
 * refused connection. `leaving` makes it answer as a stopping service does (`Connection: close`).
 */
class Replica {
  readonly url: string;
  ready = true;
  leaving = false;
  served: Array<{ method: string; url: string; body: string }> = [];
  upgrades = 0;
  private server: Server | undefined;
  /** Upgraded sockets, which the server no longer tracks and close() would wait for. */
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly name: string,
    private readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const server = createServer(async (req, res) => {
      if (this.leaving) res.setHeader('connection', 'close');
      if (req.url === '/health/ready') return void sendJson(res, this.ready ? 200 : 503, { status: 'UP' });
      const body = await readBody(req);
      this.served.push({ method: req.method ?? '', url: req.url ?? '', body });
      sendJson(res, 200, { success: true, data: { replica: this.name, body } });
    });
    server.on('upgrade', (_req, socket: Socket) => {
      this.upgrades++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Replica: ${this.name}\r\n\r\n`,
      );
      socket.on('data', (data) => socket.write(data));
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let idp: TestIdp;
let gw: TestGateway;
let token: string;
let a: Replica;
let b: Replica;
let collabA: Replica;
let collabB: Replica;
const doc = '0b6c8a51-7d52-4b8e-9d8f-2f1d4f0d7a11';

beforeAll(async () => {
  idp = await startIdp();
  [a, b, collabA, collabB] = await Promise.all(
    ['a', 'b', 'collab-a', 'collab-b'].map(async (name) => new Replica(name, await freePort())),
  );
  await Promise.all([a, b, collabA, collabB].map((r) => r.start()));
  gw = await startTestGateway({
    idp,
    without: ['document', 'collab'],
    env: { DOCUMENT_URL: `${a.url}, ${b.url}`, COLLAB_URL: `${collabA.url},${collabB.url}` },
    // Checked often so that a replica that is back is seen soon; nothing here waits for a round.
    deps: { replicaOptions: { checkIntervalMs: 50 } },
  });
  token = await idp.mint({ sub: 'idp-replicas', email: 'replicas@example.com', name: 'Rep' });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([a, b, collabA, collabB].map((r) => r?.stop()));
  await idp?.close();
});

async function get(headers: Record<string, string> = {}) {
  const res = await gw.app.inject({
    method: 'GET',
    url: `/api/v1/documents/${doc}`,
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
  return { status: res.statusCode, replica: res.statusCode === 200 ? (res.json().data.replica as string) : null };
}

async function actuatorDocument(): Promise<string> {
  const res = await gw.app.inject({ method: 'GET', url: '/actuator/health' });
  return res.json().services.document;
}

describe('gateway: a service with two replicas', () => {
  it('parses both URLs of DOCUMENT_URL', () => {
    expect(gw.config.replicaUrls.document).toEqual([a.url, b.url]);
    expect(gw.config.urls.document).toBe(a.url);
  });

  it('spreads requests over both replicas in turn', async () => {
    const seen: Array<string | null> = [];
    for (let i = 0; i < 8; i++) {
      const res = await get();
      expect(res.status).toBe(200);
      seen.push(res.replica);
    }
    expect(seen.filter((r) => r === 'a')).toHaveLength(4);
    expect(seen.filter((r) => r === 'b')).toHaveLength(4);
    // Round robin: never the same replica twice in a row.
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
  });

  it('with one replica stopped, every request still succeeds, each served exactly once', async () => {
    await b.stop();
    const before = { a: a.served.length, b: b.served.length };
    for (let i = 0; i < 10; i++) {
      const res = await get();
      expect(res).toEqual({ status: 200, replica: 'a' });
    }
    // A body the gateway buffered is sent again to the other replica when the first refused.
    const posted = await gw.app.inject({
      method: 'POST',
      url: `/api/v1/documents/${doc}/move`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"parentId":null}',
    });
    expect(posted.statusCode).toBe(200);
    expect(posted.json().data).toEqual({ replica: 'a', body: '{"parentId":null}' });
    // Event streams take the same way (their own dispatcher).
    expect(await get({ accept: 'text/event-stream' })).toEqual({ status: 200, replica: 'a' });
    expect(a.served.length - before.a).toBe(12);
    expect(b.served.length).toBe(before.b);
    expect(await actuatorDocument()).toBe('UP');
  });

  it('uses a replica again once it answers its readiness check', async () => {
    await b.start();
    await expect.poll(async () => (await get()).replica, { interval: 20 }).toBe('b');
    const next = [(await get()).replica, (await get()).replica];
    expect(next.sort()).toEqual(['a', 'b']);
  });

  it('skips a replica whose readiness check fails although it still accepts connections', async () => {
    a.ready = false;
    try {
      // Once the check has seen it, only b gets requests.
      await expect
        .poll(
          async () => {
            const replicas = [];
            for (let i = 0; i < 4; i++) replicas.push((await get()).replica);
            return replicas;
          },
          { interval: 20 },
        )
        .toEqual(['b', 'b', 'b', 'b']);
    } finally {
      a.ready = true;
    }
    await expect.poll(async () => (await get()).replica, { interval: 20 }).toBe('a');
  });

  it('answers 503 when no replica can be reached, and /actuator/health reports the service DOWN', async () => {
    await Promise.all([a.stop(), b.stop()]);
    try {
      const res = await gw.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
      expect(await actuatorDocument()).toBe('DOWN');
    } finally {
      await Promise.all([a.start(), b.start()]);
    }
  });
});

describe("gateway: its own calls to a service's replicas", () => {
  it('resolves users at a ready workspace replica, not at one that is gone', async () => {
    const gone = `http://127.0.0.1:${await freePort()}`;
    // Read per call: the workspace service now has a first replica that is not running (config.urls
    // names the first, as loadConfig makes it).
    const running = gw.fakes.workspace.url;
    gw.config.replicaUrls.workspace = [gone, running];
    gw.config.urls.workspace = gone;
    try {
      const fresh = async (i: number) => {
        const t = await idp.mint({ sub: `idp-replica-user-${i}-${Date.now()}`, email: `u${i}@example.com`, name: 'U' });
        const res = await gw.app.inject({
          method: 'GET',
          url: `/api/v1/documents/${doc}`,
          headers: { authorization: `Bearer ${t}` },
        });
        return res.statusCode;
      };
      // Once the readiness check has taken the missing replica out, every new user resolves.
      let i = 0;
      await expect.poll(() => fresh(i++), { interval: 20 }).toBe(200);
      const statuses = [];
      for (let k = 0; k < 6; k++) statuses.push(await fresh(i++));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      gw.config.replicaUrls.workspace = [running];
      gw.config.urls.workspace = running;
    }
  });
});

describe('gateway: what is never sent twice', () => {
  let cut: Server;
  let cutRequests = 0;
  let other: Replica;
  let second: TestGateway;

  beforeAll(async () => {
    // A replica that is ready, but reads a request, then drops the connection without an answer.
    cut = createServer((req, res) => {
      if (req.url === '/health/ready') return void sendJson(res, 200, { status: 'UP' });
      cutRequests++;
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    cut.listen(0, '127.0.0.1');
    await once(cut, 'listening');
    other = new Replica('other', await freePort());
    await other.start();
    const cutUrl = `http://127.0.0.1:${(cut.address() as { port: number }).port}`;
    second = await startTestGateway({
      idp,
      without: ['comment'],
      env: { COMMENT_URL: `${cutUrl},${other.url}` },
      // Only the check at start-up: what takes a replica out here is the failed request alone.
      deps: { replicaOptions: { checkIntervalMs: 3_600_000 } },
    });
  });
  afterAll(async () => {
    await second?.close();
    cut?.closeAllConnections();
    await new Promise((resolve) => cut?.close(resolve));
    await other?.stop();
  });

  it('sends a read whose connection broke before its answer to the other replica', async () => {
    // Round robin starts with the first replica: the one that drops the connection.
    const res = await second.app.inject({
      method: 'GET',
      url: '/api/v1/comments/threads',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.replica).toBe('other');
    expect(cutRequests).toBe(1);
    expect(other.served.map((r) => r.method)).toEqual(['GET']);
    cutRequests = 0;
    other.served = [];
  });

  it('answers 503 when a replica dropped the connection after the request was sent, without trying another', async () => {
    // Round robin starts with the first replica: the one that drops the connection.
    const res = await second.app.inject({
      method: 'POST',
      url: '/api/v1/comments',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"body":"once"}',
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
    expect(cutRequests).toBe(1);
    expect(other.served).toEqual([]);
  });

  it('does not replay a streamed body on another replica when the first refused the connection', async () => {
    await new Promise((resolve) => cut.close(resolve));
    cut.closeAllConnections();
    const threads = () =>
      second.app.inject({
        method: 'GET',
        url: '/api/v1/comments/threads',
        headers: { authorization: `Bearer ${token}` },
      });
    // Round robin: this one goes to the other replica, the upload then to the stopped one.
    expect((await threads()).statusCode).toBe(200);
    const res = await second.app.inject({
      method: 'POST',
      url: '/api/v1/comments',
      // Over 64 KiB: the gateway streams it instead of buffering it.
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(100 * 1024, 1),
    });
    expect(res.statusCode).toBe(503);
    expect(other.served.map((r) => r.method)).toEqual(['GET']);
    // The refused connection took that replica out: requests now go to the other one.
    expect((await threads()).statusCode).toBe(200);
    expect((await threads()).statusCode).toBe(200);
    expect(other.served.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
  });
});

describe('gateway: a replica that says it is stopping', () => {
  let p: Replica;
  let q: Replica;
  let third: TestGateway;

  beforeAll(async () => {
    [p, q] = await Promise.all(['p', 'q'].map(async (name) => new Replica(name, await freePort())));
    await Promise.all([p.start(), q.start()]);
    third = await startTestGateway({
      idp,
      without: ['search'],
      env: { SEARCH_URL: `${p.url},${q.url}` },
      // Only the check at start-up: what takes the replica out here is its answer alone.
      deps: { replicaOptions: { checkIntervalMs: 3_600_000 } },
    });
  });
  afterAll(async () => {
    await third?.close();
    await Promise.all([p?.stop(), q?.stop()]);
  });

  it('is taken out of rotation by its first answer with Connection: close', async () => {
    const search = async () => {
      const res = await third.app.inject({
        method: 'GET',
        url: '/api/v1/documents/search?q=x',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(200);
      return res.json().data.replica as string;
    };
    expect([await search(), await search()].sort()).toEqual(['p', 'q']);
    p.leaving = true;
    // Its answer still counts (the request was served), but it is the last one it gets.
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await search());
    expect(seen.filter((r) => r === 'p')).toHaveLength(1);
    expect(seen.filter((r) => r === 'q')).toHaveLength(5);
  });
});

function upgrade(base: string): Promise<{ status: number; headers: IncomingHttpHeaders; socket?: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/collab`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway: the /collab upgrade over two replicas', () => {
  let base: string;
  beforeAll(async () => {
    base = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  });

  it('opens sockets on both replicas, and on the other one when a replica is stopped', async () => {
    const first = await Promise.all([upgrade(base), upgrade(base)]);
    expect(first.map((u) => u.headers['x-replica']).sort()).toEqual(['collab-a', 'collab-b']);
    for (const u of first) u.socket?.destroy();

    await collabA.stop();
    const upgrades = collabB.upgrades;
    for (let i = 0; i < 3; i++) {
      const u = await upgrade(base);
      expect(u.status).toBe(101);
      expect(u.headers['x-replica']).toBe('collab-b');
      // The piped socket works end to end.
      u.socket?.write('ping');
      const [echo] = await once(u.socket as Socket, 'data');
      expect(String(echo)).toBe('ping');
      u.socket?.destroy();
    }
    expect(collabB.upgrades - upgrades).toBe(3);
  });
});
