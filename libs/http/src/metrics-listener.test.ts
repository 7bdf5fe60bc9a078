import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createApp } from './app.js';
import { type MetricsListener, startMetricsListener } from './metrics.js';

let app: FastifyInstance;
let api: string;
let metrics: MetricsListener;

beforeEach(async () => {
  app = await createApp({ service: 'listener-test', logLevel: 'silent' });
  app.get('/hello', async () => ({ hello: 'world' }));
  metrics = await startMetricsListener(app, { host: '127.0.0.1', port: 0 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterEach(() => app.close());

describe('the metrics listener (ARCHITECTURE 5.14)', () => {
  it('serves /metrics on a port of its own, picked when asked for port 0, and the API port does not', async () => {
    expect(metrics.port).toBeGreaterThan(0);
    expect(metrics.url).toBe(`http://127.0.0.1:${metrics.port}`);
    expect(metrics.url).not.toBe(api);
    expect((await fetch(`${api}/hello`)).status).toBe(200);

    const scraped = await fetch(`${metrics.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    const text = await scraped.text();
    expect(text).toMatch(/^process_resident_memory_bytes\{service="listener-test"\} \d+/m);
    expect(text).toContain(
      'http_requests_total{method="GET",route="/hello",service="listener-test",status_class="2xx"} 1',
    );

    const onApi = await fetch(`${api}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('answers /metrics alone: 404 on other paths, 405 on other methods, HEAD without a body', async () => {
    for (const path of ['/', '/hello', '/metrics/extra', '/health/ready']) {
      expect({ path, status: (await fetch(`${metrics.url}${path}`)).status }).toEqual({ path, status: 404 });
    }
    const post = await fetch(`${metrics.url}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${metrics.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${metrics.url}/metrics?name[]=x`)).status).toBe(200);
  });

  it('closes with the app, kept-alive scrape connections included', async () => {
    // fetch keeps the connection alive: the close must not wait for the client to drop it.
    expect((await fetch(`${metrics.url}/metrics`)).status).toBe(200);
    await app.close();
    await expect(fetch(`${metrics.url}/metrics`)).rejects.toThrow();
  });

  it('refuses to start on a port that is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      await expect(startMetricsListener(app, { host: '127.0.0.1', port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
