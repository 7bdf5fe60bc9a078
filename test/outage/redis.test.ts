import type { Config } from '@wiki/config';
import {
  createDocument,
  eventually,
  freePort,
  type SignedInUser,
  type Stack,
  type StartPart,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateServer, startPrivateRedis } from '../../scripts/lib/private-servers.js';
import { startService as startExport } from '../../services/export/src/service.js';
import { startPlatform } from '../platform.js';

/**
 * Redis goes away (a private redis-server the test kills; the machine's shared one is untouched).
 * Two uses, two answers (docs/DECISIONS.md, "Dependency outages"): the gateway's rate limiter
 * cannot count, so it lets requests through rather than take the API down; an export cannot be
 * queued, so it is a 503 with Retry-After. Both work again once Redis is back.
 */
const USER_LIMIT = 8;
const EXPORT_TIMEOUT_MS = 30_000;
let redis: PrivateServer;
let stack: Stack;
let user: SignedInUser;
let documentId: string;

beforeAll(async () => {
  redis = await startPrivateRedis(await freePort());
  stack = await startPlatform(['workspace', 'document', 'export'], {
    parts: {
      export: ((config: Config) =>
        startExport(config, { settings: { role: 'both', timeoutMs: EXPORT_TIMEOUT_MS, backoffMs: 100 } })) as StartPart,
    },
    env: { REDIS_URL: redis.url, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_USER_PER_MIN: String(USER_LIMIT) },
  });
  user = await signInNew(stack, 'Redis Outage');
  documentId = (await createDocument(stack, user, { title: 'Exported while Redis comes and goes' })).id;
});

afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

const exportMarkdown = () =>
  fetch(`${stack.gatewayUrl}/api/v1/documents/${documentId}/export?format=markdown`, {
    headers: { authorization: `Bearer ${user.token}` },
  });

describe('Redis stopped', () => {
  it('lets API requests through unlimited, answers exports 503 with Retry-After, and both recover', async () => {
    // Redis up: requests are counted, an export is made.
    const counted = await stack.request('GET', '/api/v1/workspaces', { token: user.token });
    expect(counted.status).toBe(200);
    expect(counted.headers['x-ratelimit-limit']).toBe(String(USER_LIMIT));
    const before = await exportMarkdown();
    expect(before.status).toBe(200);
    await before.arrayBuffer();

    await redis.halt();

    // The rate limiter cannot count: more requests than the limit all go through.
    for (let i = 0; i < USER_LIMIT + 4; i++) {
      const res = await stack.request('GET', '/api/v1/workspaces', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    // The gateway stays in rotation; the system's health says what is missing.
    expect((await fetch(`${stack.gatewayUrl}/health/ready`)).status).toBe(200);
    const system = await fetch(`${stack.gatewayUrl}/actuator/health`);
    expect(system.status).toBe(503);
    expect(await system.json()).toMatchObject({ status: 'DOWN', redis: 'DOWN' });

    // An export cannot be queued: 503 with Retry-After and the error envelope.
    const asked = Date.now();
    const refused = await exportMarkdown();
    // At once, not when the request's deadline for a finished file runs out.
    expect(Date.now() - asked).toBeLessThan(EXPORT_TIMEOUT_MS);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    const exportReady = await fetch(`${stack.serviceUrls.export}/health/ready`);
    expect(exportReady.status).toBe(503);
    expect(await exportReady.json()).toMatchObject({ checks: { redis: 'DOWN' } });

    await redis.resume();

    await eventually(
      async () => {
        const res = await stack.request('GET', '/api/v1/workspaces', { token: user.token });
        expect(res.headers['x-ratelimit-limit']).toBe(String(USER_LIMIT));
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    await eventually(
      async () => {
        const res = await exportMarkdown();
        const body = Buffer.from(await res.arrayBuffer()).toString('utf8');
        expect(res.status).toBe(200);
        expect(body).toContain('Exported while Redis comes and goes');
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
  }, 90_000);
});
