import type { AddressInfo } from 'node:net';
import { startMetricsListener } from '@wiki/http';
import { getRawPath, looksLikeMetrics, METRICS_PATH_SPELLINGS } from '@wiki/testing';
import { PROXIED, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

let idp: TestIdp;
let gw: TestGateway;
let token: string;
/** The gateway's public port, and its metrics listener (port 0, as METRICS_PORT=0). */
let publicUrl: string;
let metricsUrl: string;

beforeAll(async () => {
  idp = await startIdp();
  gw = await startTestGateway({ idp });
  metricsUrl = (await startMetricsListener(gw.app, { host: '127.0.0.1', port: 0 })).url;
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  publicUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  token = await idp.mint({ sub: 'idp-metrics', email: 'metrics@example.com', name: 'Mo' });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

/** The value of the sample of `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics of the gateway', () => {
  it('counts proxied requests under the route pattern, with their latency', async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 2; i++) {
      const res = await gw.app.inject({ method: 'GET', url: `/api/v1/workspaces?page=${i}`, headers: auth });
      expect(res.statusCode).toBe(200);
    }
    expect((await gw.app.inject({ method: 'GET', url: '/api/v1/workspaces' })).statusCode).toBe(401);

    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const body = await res.text();
    const route = { service: 'gateway', method: 'GET', route: '/api/v1/*' };
    expect(sample(body, 'http_requests_total', { ...route, status_class: '2xx' })).toBe(2);
    expect(sample(body, 'http_requests_total', { ...route, status_class: '4xx' })).toBe(1);
    expect(sample(body, 'http_request_duration_seconds_count', route)).toBe(3);
    expect(body).not.toContain('page=');
    expect(body).toMatch(/^process_resident_memory_bytes\{service="gateway"\} \d+/m);
  });

  it("is never served on the public port, however it is spelt, with a token or without, nor a service's", async () => {
    const answers: Array<{ path: string; token: boolean; status: number }> = [];
    for (const path of METRICS_PATH_SPELLINGS) {
      for (const withToken of [true, false]) {
        const answer = await getRawPath(publicUrl, path, withToken ? { authorization: `Bearer ${token}` } : {});
        expect(looksLikeMetrics(answer.body)).toBe(false);
        answers.push({ path, token: withToken, status: answer.status });
      }
    }
    // A 404; a path with a dot segment is refused as malformed (400), and under /api/v1/ a
    // request without a token is refused first (401).
    const expected = answers.map(({ path, token: withToken }) => {
      const segments = path
        .split('?')[0]
        .split('/')
        .map((segment) => decodeURIComponent(segment));
      const dotSegment = segments.some((segment) => segment === '.' || segment === '..');
      const status = dotSegment ? 400 : path.startsWith('/api/v1/') && !withToken ? 401 : 404;
      return { path, token: withToken, status };
    });
    expect(answers).toEqual(expected);
    for (const name of PROXIED) {
      expect(gw.fakes[name].requests.map((r) => r.url.split('?')[0].toLowerCase())).not.toContain('/metrics');
    }
  });
});
