import type { AddressInfo } from 'node:net';
import { identity, requireKind } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createApp, success } from '@wiki/http';
import { createServiceClient, type ServiceClient } from '@wiki/service-client';
import { freePort } from '@wiki/testing';

const secret = 'a-test-secret-that-is-long-enough';

/**
 * A replica of the peer: a real service app on port 0 that answers which replica it is and
 * records what reached it. `flaky` replicas drop the connection of a `/internal/flaky` call once
 * its request has arrived, as a replica that stops mid-request does.
 */
async function startReplica(name: string, flaky = false) {
  const seen: string[] = [];
  const app = await createApp({ service: `peer-${name}`, logLevel: 'silent' });
  await app.register(identity, { secret });
  const onlyServices = requireKind('service');
  app.get('/internal/who', { preHandler: onlyServices }, async () => {
    seen.push('GET who');
    return success({ replica: name });
  });
  app.post('/internal/echo', { preHandler: onlyServices }, async (request) => {
    seen.push('POST echo');
    return success({ replica: name, echoed: request.body });
  });
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/internal/flaky',
      preHandler: onlyServices,
      handler: async (request, reply) => {
        seen.push(`${method} flaky`);
        if (!flaky) return success({ replica: name });
        reply.hijack();
        request.raw.socket.destroy();
      },
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { name, app, url: `http://127.0.0.1:${port}`, seen };
}

/** A URL where nothing listens (a port that was just free): connections to it are refused. */
const closedUrl = async () => `http://127.0.0.1:${await freePort()}`;

function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, error: (obj: object) => void lines.push(obj as Record<string, unknown>) };
}

/** A client of the workspace service whose `WORKSPACE_URL` lists `origins`. */
function clientOf(origins: string[], log: ReturnType<typeof recordingLogger>): ServiceClient {
  const config = {
    urls: { workspace: origins[0] } as Config['urls'],
    replicaUrls: { workspace: origins } as Config['replicaUrls'],
    internalTokenSecret: secret,
  };
  return createServiceClient({ service: 'caller', config, logger: log });
}

const replicaOf = (data: unknown) => (data as { replica: string }).replica;

describe('service client over a peer’s replicas', () => {
  let a: Awaited<ReturnType<typeof startReplica>>;
  let b: Awaited<ReturnType<typeof startReplica>>;
  let log: ReturnType<typeof recordingLogger>;

  beforeEach(async () => {
    [a, b] = await Promise.all([startReplica('a', true), startReplica('b')]);
    log = recordingLogger();
  });
  afterEach(async () => {
    await Promise.all([a.app.close(), b.app.close()]);
  });

  it('spreads calls round robin, GETs and POSTs alike', async () => {
    const client = clientOf([a.url, b.url], log);
    const answered: string[] = [];
    for (let i = 0; i < 4; i++) answered.push(replicaOf(await client.get('workspace', '/internal/who')));
    for (let i = 0; i < 2; i++) answered.push(replicaOf(await client.post('workspace', '/internal/echo', { i })));
    expect(answered).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(a.seen).toEqual(['GET who', 'GET who', 'POST echo']);
    expect(b.seen).toEqual(['GET who', 'GET who', 'POST echo']);
    expect(log.lines).toEqual([]);
  });

  it('goes on through the other replica when one is stopped, without a failed call', async () => {
    const client = clientOf([a.url, b.url], log);
    // Both have served, so the client holds a keep-alive connection to each.
    expect(replicaOf(await client.get('workspace', '/internal/who'))).toBe('a');
    expect(replicaOf(await client.get('workspace', '/internal/who'))).toBe('b');
    await b.app.close();
    const answered: string[] = [];
    for (let i = 0; i < 3; i++) answered.push(replicaOf(await client.get('workspace', '/internal/who')));
    for (let i = 0; i < 3; i++) answered.push(replicaOf(await client.post('workspace', '/internal/echo', { i })));
    expect(answered).toEqual(['a', 'a', 'a', 'a', 'a', 'a']);
    expect(b.seen).toEqual(['GET who']);
    expect(log.lines).toEqual([]);
  });

  it('sends a POST whose connection was refused to another replica', async () => {
    const client = clientOf([await closedUrl(), b.url], log);
    expect(await client.post('workspace', '/internal/echo', { n: 1 })).toEqual({ replica: 'b', echoed: { n: 1 } });
    expect(b.seen).toEqual(['POST echo']);
    expect(log.lines).toEqual([]);
  });

  it('answers 503 when every replica refuses, naming the last one tried', async () => {
    const [gone1, gone2] = [await closedUrl(), await closedUrl()];
    const client = clientOf([gone1, gone2], log);
    await expect(client.get('workspace', '/internal/who')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ peer: 'workspace', replica: gone2 });
    expect(String(log.lines[0].cause)).toMatch(/ECONNREFUSED/);
  });

  it('never sends again a POST that reached a replica which then dropped the connection', async () => {
    const client = clientOf([a.url, b.url], log);
    await expect(client.post('workspace', '/internal/flaky', { n: 1 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(a.seen).toEqual(['POST flaky']);
    expect(b.seen).toEqual([]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ method: 'POST', replica: a.url });
  });

  it('sends a GET whose connection was dropped to another replica', async () => {
    const client = clientOf([a.url, b.url], log);
    expect(replicaOf(await client.get('workspace', '/internal/flaky'))).toBe('b');
    expect(a.seen).toEqual(['GET flaky']);
    expect(b.seen).toEqual(['GET flaky']);
    expect(log.lines).toEqual([]);
  });
});
