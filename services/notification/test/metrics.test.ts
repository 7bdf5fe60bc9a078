import { eventually, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAs, startNotificationStack } from './helpers.js';
import { SseStream } from './sse.js';

let stack: Stack;
let ada: SignedInUser;

beforeAll(async () => {
  stack = await startNotificationStack();
  ada = await signInNew(stack, 'Ada Metrics');
});
afterAll(async () => {
  await stack?.stop();
});

/** One sample of the notification service's own `/metrics` (its metrics listener, never the API port). */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const res = await fetch(`${stack.metricsUrls.notification}/metrics`);
  expect(res.status).toBe(200);
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics of the notification service in a running stack', () => {
  it('counts the requests the gateway passed on, by route pattern, and its outbox and pool', async () => {
    for (let i = 0; i < 3; i++) expect((await listAs(stack, ada, `?limit=${i + 1}`)).status).toBe(200);
    const route = { service: 'notification', method: 'GET', route: '/api/v1/notifications' };
    expect(await sample('http_requests_total', { ...route, status_class: '2xx' })).toBe(3);
    expect(await sample('http_request_duration_seconds_count', route)).toBe(3);
    expect(await sample('db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
    expect(await sample('events_outbox_pending')).toBeGreaterThanOrEqual(0);
  });

  it('shows the SSE streams this replica holds open', async () => {
    expect(await sample('notification_sse_streams_open')).toBe(0);
    const stream = await SseStream.open(`${stack.gatewayUrl}/api/v1/notifications/stream`, {
      authorization: `Bearer ${ada.token}`,
    });
    try {
      expect(stream.status).toBe(200);
      await eventually(async () => expect(await sample('notification_sse_streams_open')).toBe(1));
    } finally {
      stream.close();
    }
    await eventually(async () => expect(await sample('notification_sse_streams_open')).toBe(0));
  });
});
