import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { identity, requireKind } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createApp, notFound, success, unauthorized } from '@wiki/http';
import { createServiceClient, type ServiceClient } from '@wiki/service-client';
import { freePort } from '@wiki/testing';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const secret = 'a-test-secret-that-is-long-enough';

interface Seen {
  service?: string;
  requestId?: string;
  body?: unknown;
}

/**
 * The peer: a real service app (createApp, the identity plugin, a service-only route) on port 0,
 * so the token is verified as a service verifies it. Records what each call carried.
 */
async function startPeer() {
  const seen: Seen[] = [];
  let connections = 0;
  const app = await createApp({ service: 'peer', logLevel: 'silent' });
  await app.register(identity, { secret });
  const onlyServices = requireKind('service');
  const record = (request: FastifyRequest) =>
    seen.push({
      service: request.identity?.service,
      requestId: request.headers['x-request-id'] as string | undefined,
      body: request.body,
    });
  app.get<{ Params: { id: string } }>('/internal/things/:id', { preHandler: onlyServices }, async (request) => {
    record(request);
    if (request.params.id === 'missing') throw notFound('Thing');
    return success({ id: request.params.id, name: 'A thing' });
  });
  app.post('/internal/echo', { preHandler: onlyServices }, async (request) => {
    record(request);
    return success({ echoed: request.body });
  });
  app.get('/internal/slow', { preHandler: onlyServices }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return success({ late: true });
  });
  app.get('/internal/boom', { preHandler: onlyServices }, async () => {
    throw new Error('the peer broke');
  });
  app.get('/internal/teapot', { preHandler: onlyServices }, async (_request, reply) =>
    reply.status(418).send({ success: false }),
  );
  app.get('/internal/conflict', { preHandler: onlyServices }, async (_request, reply) =>
    reply.status(409).send({ success: false }),
  );
  app.get('/internal/not-json', { preHandler: onlyServices }, async (_request, reply) =>
    reply.type('application/json').send('{"success": tru'),
  );
  app.get('/internal/no-data', { preHandler: onlyServices }, async () => ({ success: true }));
  // A file of `n` bytes (byte i is i mod 251), with its length announced or, `chunked`, not.
  app.get<{ Params: { n: string }; Querystring: { chunked?: string } }>(
    '/internal/file/:n',
    { preHandler: onlyServices },
    async (request, reply) => {
      record(request);
      const bytes = Buffer.from(Array.from({ length: Number(request.params.n) }, (_, i) => i % 251));
      reply.type('image/png');
      if (request.query.chunked === undefined) return reply.header('content-length', bytes.length).send(bytes);
      const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) =>
        bytes.subarray(i * 1000, (i + 1) * 1000),
      );
      return reply.send(Readable.from(chunks));
    },
  );
  app.server.on('connection', () => connections++);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, seen, connections: () => connections };
}

/** A URL where nothing listens (a port that was just free): connections to it are refused. */
const closedUrl = async () => `http://127.0.0.1:${await freePort()}`;

function recordingLogger() {
  const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  return { lines, error: (obj: object, msg?: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }) };
}

type Urls = Config['urls'];

describe('service client', () => {
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let urls: Urls;
  let log: ReturnType<typeof recordingLogger>;
  let client: ServiceClient;
  /** The calling service: a route that asks the peer on behalf of its own request. */
  let caller: FastifyInstance;

  beforeAll(async () => {
    peer = await startPeer();
  });
  afterAll(async () => {
    await peer?.app.close();
  });

  beforeEach(async () => {
    urls = { workspace: peer.url } as Urls;
    log = recordingLogger();
    client = createServiceClient({
      service: 'caller',
      config: { urls, internalTokenSecret: secret },
      logger: log,
      // Short enough for /internal/slow (3 s) to time out, long enough for a cold first call on a busy machine.
      timeoutMs: 1_000,
    });
    caller = await createApp({ service: 'caller', logLevel: 'silent' });
    caller.get<{ Params: { '*': string } }>('/api/v1/ask/*', async (request) => {
      const data = await client.get('workspace', `/internal/${request.params['*']}`, { requestId: request.id });
      if (data === null) throw notFound('Thing');
      return success(data);
    });
    peer.seen.length = 0;
  });
  afterEach(async () => {
    await caller.close();
  });

  it('answers the data of the envelope, with a service token the peer verified', async () => {
    expect(await client.get('workspace', '/internal/things/t-1')).toEqual({ id: 't-1', name: 'A thing' });
    expect(peer.seen).toEqual([{ service: 'caller', requestId: undefined, body: undefined }]);
    expect(await client.post('workspace', '/internal/echo', { a: [1, 2] })).toEqual({ echoed: { a: [1, 2] } });
    expect(peer.seen[1]).toMatchObject({ service: 'caller', body: { a: [1, 2] } });
    expect(log.lines).toEqual([]);
  });

  it('forwards the x-request-id of the request being served', async () => {
    const res = await caller.inject({ url: '/api/v1/ask/things/t-2', headers: { 'x-request-id': 'req-abc.123' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ id: 't-2', name: 'A thing' });
    expect(peer.seen).toEqual([{ service: 'caller', requestId: 'req-abc.123', body: undefined }]);
  });

  it('answers null for a 404, which is not a failure', async () => {
    expect(await client.get('workspace', '/internal/things/missing')).toBeNull();
    expect(await client.get('workspace', '/internal/no-such-route')).toBeNull();
    const res = await caller.inject({ url: '/api/v1/ask/things/missing' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
    expect(log.lines).toEqual([]);
  });

  it('parses the data when asked to, and a parse failure is the peer’s', async () => {
    const name = await client.get('workspace', '/internal/things/t-3', {
      parse: (data) => (data as { name: string }).name.toUpperCase(),
    });
    expect(name).toBe('A THING');
    await expect(
      client.get('workspace', '/internal/things/t-3', {
        parse: () => {
          throw new Error('not the shape expected');
        },
      }),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
    expect(log.lines[0].obj.cause).toContain('not the shape expected');
  });

  async function expect503(path: string, cause: RegExp) {
    const requestId = `req-${path.replace(/\W/g, '-')}`;
    const res = await caller.inject({ url: `/api/v1/ask/${path}`, headers: { 'x-request-id': requestId } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The workspace service is unavailable', requestId },
    });
    // The cause is logged once, by the client, with the call and the request it served.
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0].obj).toMatchObject({
      peer: 'workspace',
      method: 'GET',
      path: `/internal/${path}`,
      requestId,
    });
    expect(String(log.lines[0].obj.cause)).toMatch(cause);
    log.lines.length = 0;
  }

  it('turns a peer that is down into a 503 SERVICE_UNAVAILABLE envelope', async () => {
    urls.workspace = await closedUrl();
    await expect503('things/t-4', /ECONNREFUSED/);
  });

  it('turns a peer that does not answer in time into a 503, without waiting for it', async () => {
    const started = Date.now();
    await expect503('slow', /abort|timeout/i);
    // At the client's 1 s timeout, well before the peer's 3 s answer.
    expect(Date.now() - started).toBeLessThan(2_500);
    // A longer timeout for one call lets it finish.
    expect(await client.get('workspace', '/internal/slow', { timeoutMs: 6_000 })).toEqual({ late: true });
  });

  it('turns a 5xx, an unexpected status, a body that is not JSON or has no data into a 503', async () => {
    await expect503('boom', /answered 500/);
    await expect503('teapot', /answered 418/);
    await expect503('not-json', /JSON/);
    await expect503('no-data', /without data/);
  });

  it('turns a token the peer refuses into a 503: the caller is misconfigured, not the user', async () => {
    const wrong = createServiceClient({
      service: 'caller',
      config: { urls, internalTokenSecret: 'another-secret-that-is-long-enough' },
      logger: log,
    });
    await expect(wrong.get('workspace', '/internal/things/t-5')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(log.lines[0].obj.cause).toMatch(/answered 401/);
    expect(peer.seen).toEqual([]);
  });

  it('lets the caller give a 4xx refusal its own meaning', async () => {
    const refusal = (status: number) => (status === 409 ? unauthorized('Refused by the peer') : undefined);
    await expect(client.get('workspace', '/internal/conflict', { refusal })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Refused by the peer',
    });
    expect(log.lines).toEqual([]);
    // Statuses it leaves alone are still the peer's failure.
    await expect(client.get('workspace', '/internal/teapot', { refusal })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('answers a file route’s bytes and type with a service token, null for a 404, and nothing over the cap', async () => {
    const answer = await client.getBytes('workspace', '/internal/file/5000', { maxBytes: 5000, requestId: 'req-f' });
    expect(answer?.contentType).toBe('image/png');
    expect(Buffer.from(answer?.bytes ?? [])).toEqual(Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251)));
    expect(peer.seen).toEqual([{ service: 'caller', requestId: 'req-f', body: undefined }]);
    const chunked = await client.getBytes('workspace', '/internal/file/5000?chunked', { maxBytes: 5000 });
    expect(chunked?.bytes.byteLength).toBe(5000);
    expect(await client.getBytes('workspace', '/internal/things/missing', { maxBytes: 10 })).toBeNull();
    expect(log.lines).toEqual([]);

    // Over the cap, announced or found while reading: the peer's failure, a 503.
    await expect(client.getBytes('workspace', '/internal/file/5001', { maxBytes: 5000 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    await expect(client.getBytes('workspace', '/internal/file/5001?chunked', { maxBytes: 5000 })).rejects.toMatchObject(
      { code: 'SERVICE_UNAVAILABLE' },
    );
    expect(log.lines.map((l) => l.obj.cause)).toEqual([
      'Error: answered more than 5000 bytes',
      'Error: answered more than 5000 bytes',
    ]);
    expect(log.lines[0].obj.method).toBe('GET');
    // A refusal keeps the meaning the caller gives it.
    const refusal = (status: number) => (status === 409 ? unauthorized('Refused') : undefined);
    await expect(client.getBytes('workspace', '/internal/conflict', { maxBytes: 10, refusal })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('keeps connections alive across calls', async () => {
    // Each client has its own agent: undici's fresh pool may open a second connection for the call
    // right after its first (the first is not yet marked free); after that the pool is warm.
    for (let i = 0; i < 2; i++) await client.get('workspace', `/internal/things/warm-up-${i}`);
    const before = peer.connections();
    for (let i = 0; i < 5; i++) await client.get('workspace', `/internal/things/t-${i}`);
    expect(peer.connections()).toBe(before);
  });
});
