import { createLimitsRedis as createRedis } from '@wiki/limits';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { closedUrl } from './helpers/upstreams.js';

let idp: TestIdp;
let gw: TestGateway;

const USER_LIMIT = 3;
const PUBLIC_LIMIT = 2;

beforeAll(async () => {
  idp = await startIdp();
  gw = await startTestGateway({
    idp,
    env: {
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_USER_PER_MIN: String(USER_LIMIT),
      RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC_LIMIT),
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

let nextIp = 10;
/** Each test speaks from its own client address, so the per-IP buckets do not mix. */
const freshIp = () => `10.0.0.${nextIp++}`;

function call(url: string, options: { token?: string; ip: string; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return gw.app.inject({ method: 'GET', url, headers, remoteAddress: options.ip });
}

function expectLimited(res: Awaited<ReturnType<typeof call>>) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({
    success: false,
    error: { code: 'RATE_LIMITED', requestId: res.headers['x-request-id'] },
  });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('rate limits', () => {
  it('limits a verified user by their local user id, not other users', async () => {
    const ip = freshIp();
    const first = await idp.mint({ sub: 'idp-busy', email: 'busy@example.com' });
    const second = await idp.mint({ sub: 'idp-calm', email: 'calm@example.com' });
    for (let i = 0; i < USER_LIMIT; i++) {
      const res = await call('/api/v1/workspaces', { token: first, ip });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(USER_LIMIT - i - 1));
    }
    expectLimited(await call('/api/v1/workspaces', { token: first, ip }));
    // A fresh token of the same user is the same user: still limited, from anywhere.
    expectLimited(
      await call('/api/v1/workspaces', {
        token: await idp.mint({ sub: 'idp-busy', email: 'busy@example.com' }),
        ip: freshIp(),
      }),
    );
    // Another user from the same address is not.
    expect((await call('/api/v1/workspaces', { token: second, ip })).statusCode).toBe(200);
  });

  it('limits public routes per client IP', async () => {
    const ip = freshIp();
    for (let i = 0; i < PUBLIC_LIMIT; i++)
      expect((await call('/api/v1/public/documents/abc', { ip })).statusCode).toBe(200);
    expectLimited(await call('/api/v1/invitations/tok/info', { ip }));
    expectLimited(await call('/api/v1/email/unsubscribe?token=u1.abc', { ip }));
    expect((await call('/api/v1/public/documents/abc', { ip: freshIp() })).statusCode).toBe(200);
  });

  it('counts requests with unverified credentials against the IP, whatever token they carry', async () => {
    const ip = freshIp();
    for (let i = 0; i < PUBLIC_LIMIT; i++) {
      expect((await call('/api/v1/workspaces', { token: `forged-${i}`, ip })).statusCode).toBe(401);
    }
    expectLimited(await call('/api/v1/workspaces', { token: 'forged-again', ip }));
    expectLimited(await call('/api/v1/mcp/sse', { ip, headers: { 'x-mcp-api-key': 'guess' } }));
    // A verified user from that address has their own budget.
    const token = await idp.mint({ sub: 'idp-neighbour', email: 'neighbour@example.com' });
    expect((await call('/api/v1/workspaces', { token, ip })).statusCode).toBe(200);
  });

  it('does not limit the internal API key or the health probes', async () => {
    const ip = freshIp();
    for (let i = 0; i < PUBLIC_LIMIT + 2; i++) {
      expect(
        (
          await call('/api/v1/internal/documents/d/collab-state', {
            ip,
            headers: { 'x-internal-api-key': gw.config.internalApiKey },
          })
        ).statusCode,
      ).toBe(200);
      expect((await call('/health/live', { ip })).statusCode).toBe(200);
    }
  });
});

describe('rate limits switched off or without Redis', () => {
  it('lets everything through when RATE_LIMIT_ENABLED=false', async () => {
    const off = await startTestGateway({ idp, env: { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_PUBLIC_PER_MIN: '1' } });
    try {
      for (let i = 0; i < 3; i++)
        expect((await off.app.inject({ method: 'GET', url: '/api/v1/public/documents/abc' })).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('lets requests through when Redis is down', async () => {
    const deadRedis = createRedis((await closedUrl()).replace('http:', 'redis:'));
    deadRedis.on('error', () => undefined);
    const down = await startTestGateway({
      idp,
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_USER_PER_MIN: '1', RATE_LIMIT_PUBLIC_PER_MIN: '1' },
      deps: { redis: deadRedis },
    });
    try {
      const token = await idp.mint({ sub: 'idp-no-redis', email: 'no-redis@example.com' });
      for (let i = 0; i < 3; i++) {
        expect((await down.app.inject({ method: 'GET', url: '/api/v1/public/documents/abc' })).statusCode).toBe(200);
        expect(
          (
            await down.app.inject({
              method: 'GET',
              url: '/api/v1/workspaces',
              headers: { authorization: `Bearer ${token}` },
            })
          ).statusCode,
        ).toBe(200);
      }
      // The gateway stays ready: without Redis it serves, only without rate limits.
      expect((await down.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await down.close();
      deadRedis.disconnect();
    }
  });
});
