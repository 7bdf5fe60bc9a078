import type { AddressInfo } from 'node:net';
import { eventually, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMcp, startService as startMcp } from '../src/service.js';
import {
  type Connected,
  clientFetch,
  closeClientConnections,
  connect,
  type McpKey,
  mcpKeyOf,
  startMcpStack,
} from './helpers.js';

/**
 * At most MCP_SESSIONS_PER_KEY (default 10) open SSE sessions per MCP key across every replica
 * (ARCHITECTURE 5.14), with the SDK's client through the gateway at two MCP replicas: the session
 * past the limit is served and the key's oldest is closed, with a reason on its stream.
 */
const LIMIT = 10;

let stack: Stack;
const replicas: RunningMcp[] = [];
let ada: SignedInUser;
const open: Connected[] = [];

const sessionsHere = () => replicas.map((r) => r.app.mcpSessions.size);
const totalSessions = () => sessionsHere().reduce((a, b) => a + b);

/** An SDK client over SSE whose stream's raw text is kept (to read what the server said last). */
async function connectRecorded(key: string): Promise<{ mcp: Connected; streamText: () => string }> {
  let text = '';
  const recording: typeof fetch = async (input, init) => {
    const res = await clientFetch(input, init);
    if ((init?.method ?? 'GET') !== 'GET' || !res.body) return res;
    const [forClient, forTest] = res.body.tee();
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of forTest as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk);
      } catch {
        // the client closed it
      }
    })();
    return new Response(forClient, { status: res.status, headers: res.headers });
  };
  const mcp = await connect(stack, key, 'sse', recording);
  open.push(mcp);
  return { mcp, streamText: () => text };
}

async function session(key: McpKey): Promise<Connected> {
  const mcp = await connect(stack, key.key, 'sse');
  open.push(mcp);
  return mcp;
}

beforeAll(async () => {
  stack = await startMcpStack();
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const replica = await startMcp(stack.config);
    replicas.push(replica);
    await replica.app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(`http://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}`);
  }
  stack.config.replicaUrls.mcp = urls;
  ada = await signInNew(stack, 'Ada Assistant');
});
afterEach(async () => {
  for (const mcp of open.splice(0)) await mcp.close().catch(() => undefined);
  await eventually(() => expect(totalSessions()).toBe(0));
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop().catch(() => undefined);
  await closeClientConnections();
  await stack?.stop();
});

describe('MCP SSE sessions per key', () => {
  it(`serves ${LIMIT} sessions of a key; the next closes the oldest, with a reason, across replicas`, async () => {
    const key = await mcpKeyOf(stack, ada);
    const otherKey = await mcpKeyOf(stack, ada);
    const oldest = await connectRecorded(key.key);
    const sessions = [oldest.mcp];
    for (let i = 1; i < LIMIT; i++) sessions.push(await session(key));
    // The same user's other key is counted on its own.
    const other = await session(otherKey);
    expect(sessionsHere().every((n) => n > 0)).toBe(true);
    expect(totalSessions()).toBe(LIMIT + 1);
    expect((await oldest.mcp.client.listTools()).tools.length).toBeGreaterThan(0);

    const newest = await session(key);
    await eventually(() =>
      expect(oldest.streamText()).toContain(
        'event: reconnect\ndata: {"reason":"too many sessions for this MCP key"}\n\n',
      ),
    );
    expect(oldest.streamText()).toContain('retry: 30000\n');
    await eventually(() => expect(totalSessions()).toBe(LIMIT + 1));
    // The oldest session is gone: its messages find nothing; the others work.
    await expect(oldest.mcp.client.listTools()).rejects.toThrow(/404/);
    for (const mcp of [sessions[1], sessions[LIMIT - 1], newest, other])
      expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('a session that ends on its own frees its place: no other is closed for the next', async () => {
    const key = await mcpKeyOf(stack, ada);
    const sessions: Connected[] = [];
    for (let i = 0; i < LIMIT; i++) sessions.push(await session(key));
    await sessions[3].close();
    await eventually(() => expect(totalSessions()).toBe(LIMIT - 1));
    sessions.push(await session(key));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(totalSessions()).toBe(LIMIT);
    for (const mcp of [sessions[0], sessions[LIMIT]])
      expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
