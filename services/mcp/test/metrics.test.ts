import { eventually, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFetch, closeClientConnections, mcpKeyOf, startMcpStack } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => {
  await closeClientConnections();
  await stack?.stop();
});

/** One sample of the MCP service's own `/metrics` (its metrics listener, never the API port). */
async function sample(name: string): Promise<number | undefined> {
  const res = await fetch(`${stack.metricsUrls.mcp}/metrics`);
  expect(res.status).toBe(200);
  const match = new RegExp(`^${name}\\{service="mcp"\\} (\\S+)$`, 'm').exec(await res.text());
  return match ? Number(match[1]) : undefined;
}

describe('GET /metrics of the MCP service', () => {
  it('shows the SSE sessions this replica holds', async () => {
    const key = await mcpKeyOf(stack, await signInNew(stack, 'Mia Metrics'));
    expect(await sample('mcp_sse_sessions_open')).toBe(0);
    const abort = new AbortController();
    const res = await clientFetch(`${stack.gatewayUrl}/api/v1/mcp/sse`, {
      headers: { 'x-mcp-api-key': key.key, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    try {
      await eventually(async () => expect(await sample('mcp_sse_sessions_open')).toBe(1));
    } finally {
      await res.body?.cancel().catch(() => undefined);
      abort.abort();
    }
    await eventually(async () => expect(await sample('mcp_sse_sessions_open')).toBe(0));
  });

  it('is not served on the API port (ARCHITECTURE 5.14): 404 there', async () => {
    const res = await fetch(`${stack.serviceUrls.mcp}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('# TYPE');
  });
});
