import { PROXIED, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';

let idp: TestIdp;
let gw: TestGateway;
let token: string;

beforeAll(async () => {
  idp = await startIdp();
  gw = await startTestGateway({ idp });
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

    const res = await gw.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const route = { service: 'gateway', method: 'GET', route: '/api/v1/*' };
    expect(sample(res.body, 'http_requests_total', { ...route, status_class: '2xx' })).toBe(2);
    expect(sample(res.body, 'http_requests_total', { ...route, status_class: '4xx' })).toBe(1);
    expect(sample(res.body, 'http_request_duration_seconds_count', route)).toBe(3);
    expect(res.body).not.toContain('page=');
    expect(res.body).toMatch(/^process_resident_memory_bytes\{service="gateway"\} \d+/m);
  });

  it("never hands a service's /metrics to a client: only /api/v1/** is proxied, path unchanged", async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const url of ['/api/v1/metrics', '/api/v1/../metrics', '/api/v1/%2e%2e/metrics']) {
      const res = await gw.app.inject({ method: 'GET', url, headers: auth });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.body).not.toContain('http_requests_total');
    }
    for (const name of PROXIED) {
      expect(gw.fakes[name].requests.map((r) => r.url.split('?')[0])).not.toContain('/metrics');
    }
  });
});
