import { identity, mintIdentityToken, requireKind, requireUser } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { badRequest, createApp, success, unauthorized } from '@wiki/http';
import { createServiceClient, MultipartBody, type PeerError, type ServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';

const secret = 'a-test-secret-that-is-long-enough';
const internalApiKey = 'an-internal-api-key-long-enough';
const USER = '33333333-3333-4333-8333-333333333333';

/**
 * One app that plays both peers the client's callers have beside plain service calls: a service
 * whose public routes take a forwarded user token (as mcp calls them), and the gateway's internal
 * routes, which take the internal API key (as collab calls them).
 */
async function startPeer(): Promise<{ app: FastifyInstance; url: string }> {
  const app = await createApp({ service: 'peer', logLevel: 'silent' });
  await app.register(identity, { secret });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.put<{ Params: { id: string } }>('/internal/things/:id', { preHandler: requireKind('service') }, async (request) =>
    success({ id: request.params.id, put: request.body }),
  );
  app.get('/api/v1/mine', async (request) => success({ userId: requireUser(request).userId }));
  app.put('/api/v1/mine', async (request) => {
    requireUser(request);
    throw badRequest('Invalid input', [{ field: 'title', message: 'is too long' }]);
  });
  const gatewayKey = (headers: Record<string, unknown>) => {
    if (headers['x-internal-api-key'] !== internalApiKey || headers['x-wiki-identity']) throw unauthorized();
  };
  app.post('/api/v1/internal/upload', async (request) => {
    gatewayKey(request.headers);
    return success({ type: request.headers['content-type'], body: request.body });
  });
  app.get<{ Querystring: { full?: string } }>('/api/v1/internal/state', async (request, reply) => {
    gatewayKey(request.headers);
    reply.header('x-content-revision', '7');
    if (request.query.full === undefined) return reply.status(204).send();
    return reply.type('application/octet-stream').send(Buffer.from([1, 2, 3]));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}` };
}

describe('service client: forwarded identities, PUT, the gateway, and answers read by the caller', () => {
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let client: ServiceClient;
  const failures: object[] = [];

  beforeAll(async () => {
    peer = await startPeer();
    const config = {
      urls: { document: peer.url } as Config['urls'],
      gatewayUrl: peer.url,
      internalTokenSecret: secret,
      internalApiKey,
    };
    client = createServiceClient({ service: 'caller', config, logger: { error: (obj) => void failures.push(obj) } });
  });
  afterAll(async () => {
    await peer?.app.close();
  });
  beforeEach(() => {
    failures.length = 0;
  });

  it('sends a PUT with a JSON body as this service', async () => {
    expect(await client.put('document', '/internal/things/t-1', { title: 'T' })).toEqual({
      id: 't-1',
      put: { title: 'T' },
    });
  });

  it('calls as the user whose identity token it forwards, and hands a refusal’s envelope error to the caller', async () => {
    const identityToken = await mintIdentityToken(secret, { kind: 'mcp', userId: USER });
    expect(await client.get('document', '/api/v1/mine', { identityToken })).toEqual({ userId: USER });
    // Without it the call is the service's own, which the user route refuses.
    await expect(client.get('document', '/api/v1/mine')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    failures.length = 0;

    const seen: Array<{ status: number; error: PeerError | undefined }> = [];
    const refusal = (status: number, error: PeerError | undefined) => {
      seen.push({ status, error });
      return new Error('refused');
    };
    await expect(client.put('document', '/api/v1/mine', {}, { identityToken, refusal })).rejects.toThrow('refused');
    expect(seen).toEqual([
      {
        status: 400,
        error: expect.objectContaining({
          code: 'VALIDATION_ERROR',
          message: 'Invalid input',
          details: [{ field: 'title', message: 'is too long' }],
        }),
      },
    ]);
    expect(failures).toEqual([]);
  });

  it('calls the gateway’s internal routes with the internal API key, a multipart body as it is', async () => {
    const form = new MultipartBody();
    form.append('file', new Blob([Uint8Array.of(9, 9)], { type: 'application/octet-stream' }), 'f.bin');
    form.append('field', 'value');
    const answer = await client.post<{ type: string; body: string }>('gateway', '/api/v1/internal/upload', form);
    expect(answer?.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(answer?.body).toContain('name="field"\r\n\r\nvalue');
    expect(answer?.body).toContain('filename="f.bin"');
  });

  it('hands the caller of send the status, headers and bytes of an answer that is no envelope', async () => {
    const read = (path: string) =>
      client.send('gateway', { method: 'GET', path, accept: 'application/octet-stream' }, async (answer) => ({
        status: answer.status,
        revision: answer.headers['x-content-revision'],
        bytes: answer.status === 200 ? [...(await answer.bytes(3))] : null,
      }));
    expect(await read('/api/v1/internal/state')).toEqual({ status: 204, revision: '7', bytes: null });
    expect(await read('/api/v1/internal/state?full')).toEqual({ status: 200, revision: '7', bytes: [1, 2, 3] });
    // What `read` throws is the peer's failure, as is a body over the cap.
    await expect(
      client.send('gateway', { method: 'GET', path: '/api/v1/internal/state?full' }, (answer) => answer.bytes(2)),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The gateway service is unavailable' });
    expect(failures).toEqual([
      expect.objectContaining({ peer: 'gateway', method: 'GET', cause: 'Error: answered more than 2 bytes' }),
    ]);
  });
});
