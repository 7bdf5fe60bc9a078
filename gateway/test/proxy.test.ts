import { request as httpRequest } from 'node:http';
import { forwardedIdentity, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { closedUrl } from './helpers/upstreams.js';

let idp: TestIdp;
let gw: TestGateway;
let base: string;
let token: string;

beforeAll(async () => {
  idp = await startIdp();
  // The comment service is "not deployed": its URL points where nothing listens.
  gw = await startTestGateway({ idp, without: ['comment'], env: { COMMENT_URL: await closedUrl() } });
  base = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  token = await idp.mint({ sub: 'idp-proxy', email: 'proxy@example.com', name: 'Pat' });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const doc = '0b6c8a51-7d52-4b8e-9d8f-2f1d4f0d7a11';

describe('routing', () => {
  it.each([
    ['GET', `/api/v1/documents/search?workspaceId=${doc}&query=a%20b`, 'search'],
    ['GET', `/api/v1/documents/${doc}/export?format=pdf`, 'export'],
    ['GET', `/api/v1/documents/${doc}`, 'document'],
    ['GET', `/api/v1/documents?workspaceId=${doc}`, 'document'],
    ['GET', `/api/v1/documents/tree?workspaceId=${doc}`, 'document'],
    ['POST', `/api/v1/documents/${doc}/move`, 'document'],
    ['GET', `/api/v1/documents/${doc}/exports`, 'document'],
    ['GET', '/api/v1/workspaces', 'workspace'],
    ['DELETE', `/api/v1/workspaces/${doc}/members/${doc}`, 'workspace'],
    ['POST', '/api/v1/invitations/tok/accept', 'workspace'],
    ['GET', '/api/v1/users/me/mcp-keys', 'workspace'],
    ['PUT', `/api/v1/comments/threads/${doc}/resolve`, 'comment'],
    ['GET', `/api/v1/attachments/document/${doc}`, 'attachment'],
    ['GET', '/api/v1/notifications/count', 'notification'],
  ])('%s %s goes to %s, path and query unchanged', async (method, url, service) => {
    const res = await gw.app.inject({ method: method as 'GET', url, headers: auth() });
    if (service === 'comment') {
      // Not running: a 503 envelope, not a 500 and not a hang.
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', requestId: res.headers['x-request-id'] },
      });
      return;
    }
    expect(res.statusCode).toBe(200);
    const echoed = res.json().data;
    expect(echoed.service).toBe(service);
    expect(echoed.method).toBe(method);
    expect(echoed.url).toBe(url);
  });

  it('answers 404 for an authenticated request to a path no service owns', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: auth() });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });

  it('passes x-request-id upstream and back', async () => {
    const res = await gw.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { ...auth(), 'x-request-id': 'trace-abc-123' },
    });
    expect(res.headers['x-request-id']).toBe('trace-abc-123');
    expect(res.json().data.headers['x-request-id']).toBe('trace-abc-123');
  });

  it('forwards request bodies untouched, without the gateway parsing or limiting them', async () => {
    const notJson = '{"title": "half a document"';
    const res = await gw.app.inject({
      method: 'PUT',
      url: `/api/v1/documents/${doc}`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: notJson,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.body).toBe(notJson);

    // Larger than the gateway's own 1 MiB JSON limit: documents take up to 3 MiB, the service decides.
    const big = JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) });
    const large = await gw.app.inject({
      method: 'PUT',
      url: `/api/v1/documents/${doc}`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: big,
    });
    expect(large.statusCode).toBe(200);
    expect(large.json().data.body.length).toBe(big.length);
  });

  it('passes a service’s own 503 through once, without retrying it', async () => {
    let hits = 0;
    gw.fakes.export.on((req, res) => {
      if (!req.url?.startsWith(`/api/v1/documents/${doc}/export`)) return false;
      hits += 1;
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
        .end('{"success":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"export timed out"}}');
      return true;
    });
    const res = await gw.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc}/export?format=pdf`,
      headers: auth(),
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toBe('export timed out');
    expect(hits).toBe(1);
  });

  it('drops hop-by-hop headers in both directions', async () => {
    gw.fakes.document.on((req, res) => {
      if (req.url !== `/api/v1/documents/${doc}/hops`) return false;
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, x-upstream-hop',
        'x-upstream-hop': '1',
        'keep-alive': 'timeout=5',
        'proxy-authenticate': 'Basic',
        'x-upstream-kept': 'yes',
      });
      res.end(JSON.stringify({ data: { headers: req.headers } }));
      return true;
    });
    const res = await gw.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc}/hops`,
      headers: {
        ...auth(),
        connection: 'keep-alive, x-client-hop',
        'x-client-hop': '1',
        te: 'trailers',
        'proxy-authorization': 'Basic eDp5',
        'x-client-kept': 'yes',
      },
    });
    expect(res.statusCode).toBe(200);
    const forwarded = res.json().data.headers;
    expect(forwarded['x-client-kept']).toBe('yes');
    for (const name of ['x-client-hop', 'te', 'proxy-authorization']) expect(forwarded[name]).toBeUndefined();
    expect(res.headers['x-upstream-kept']).toBe('yes');
    for (const name of ['x-upstream-hop', 'proxy-authenticate']) expect(res.headers[name]).toBeUndefined();
    expect(res.headers['keep-alive']).not.toBe('timeout=5');
  });

  it('forwards a body that comes without a content type', async () => {
    const res = await fetch(`${base}/api/v1/documents/${doc}/move`, {
      method: 'POST',
      headers: auth(),
      body: new Uint8Array(Buffer.from('raw bytes')),
    });
    expect(res.status).toBe(200);
    const echoed = ((await res.json()) as { data: { body: string; headers: Record<string, string> } }).data;
    expect(echoed.body).toBe('raw bytes');
    expect(echoed.headers['content-type']).toBeUndefined();
  });

  it('refuses dot segments sent raw on the wire', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      // Options, not a URL string: a URL would resolve the dot segments before sending.
      const { hostname, port } = new URL(base);
      const req = httpRequest(
        { hostname, port, method: 'GET', path: '/api/v1/public/documents/../../workspaces' },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(gw.fakes.workspace.requests.some((r) => r.url.includes('..'))).toBe(false);
  });
});

describe('streaming', () => {
  it('streams a 20 MB upload to the service while it is still being sent', async () => {
    const total = 20 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    let received = 0;
    let firstBytesArrived!: () => void;
    const upstreamStarted = new Promise<void>((resolve) => (firstBytesArrived = resolve));

    gw.fakes.attachment.on(async (req, res) => {
      if (req.url !== '/api/v1/attachments/upload') return false;
      const identity = await forwardedIdentity(gw, req.headers);
      for await (const part of req) {
        received += (part as Buffer).length;
        firstBytesArrived();
      }
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: true, data: { bytes: received, userId: identity.userId } }));
      return true;
    });

    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === chunk.length) {
          // The rest is only sent once the service has seen the first megabyte: a gateway that
          // buffered the whole body before forwarding it would never get here.
          await upstreamStarted;
        }
        if (sent >= total) return controller.close();
        controller.enqueue(new Uint8Array(chunk));
        sent += chunk.length;
      },
    });
    const res = await fetch(`${base}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(201);
    const json = (await res.json()) as { data: { bytes: number; userId: string } };
    expect(json.data.bytes).toBe(total);
    expect(json.data.userId).toBe(gw.users.get('idp-proxy')!.id);
  });

  it('ends the request to the service when the client goes away', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    gw.fakes.notification.on((req, res) => {
      if (req.url !== '/api/v1/notifications/stream?abort=1') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: unread-count\ndata: {"unreadCount":1}\n\n');
      // Never ends by itself: only the gateway closing the connection finishes this test.
      res.on('close', upstreamClosed);
      return true;
    });
    // A plain request on its own socket, destroyed after the first event arrived.
    const { hostname, port } = new URL(base);
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        {
          hostname,
          port,
          path: '/api/v1/notifications/stream?abort=1',
          headers: { ...auth(), accept: 'text/event-stream' },
          agent: false,
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    await closed;
  });

  it('delivers Server-Sent Events as they are written', async () => {
    let releaseSecond!: () => void;
    const secondAllowed = new Promise<void>((resolve) => (releaseSecond = resolve));
    gw.fakes.notification.on(async (req, res) => {
      if (req.url !== '/api/v1/notifications/stream') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('event: unread-count\ndata: {"unreadCount":1}\n\n');
      // The second event waits for the client to have seen the first one through the gateway.
      await secondAllowed;
      res.end('event: unread-count\ndata: {"unreadCount":2}\n\n');
      return true;
    });

    const res = await fetch(`${base}/api/v1/notifications/stream`, {
      headers: { ...auth(), accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe('event: unread-count\ndata: {"unreadCount":1}\n\n');
    releaseSecond();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('data: {"unreadCount":2}');
  });
});
