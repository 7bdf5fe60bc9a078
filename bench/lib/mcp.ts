import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CpuMeter, type LoadResult, load } from './load.js';

/**
 * The MCP part of `npm run bench` (--only=mcp): what an assistant costs the wiki. Through the
 * gateway with an MCP key, over Streamable HTTP (stateless: one POST per call): `tools/list` and a
 * `wikiGetDocument` call at 10 and 50 connections beside the same run's hello-world; and the time
 * an assistant waits to start, an SDK client connecting, listing the tools and calling one, over
 * both transports.
 */

export interface McpBenchOptions {
  gatewayUrl: string;
  helloUrl: string;
  /** An MCP key of the bench user. */
  key: string;
  documentId: string;
  durationS: number;
  cpuMeters: CpuMeter[];
  log(message: string): void;
}

export interface McpStartTimes {
  transport: 'http' | 'sse';
  runs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function startTimes(opts: McpBenchOptions, transport: 'http' | 'sse', runs: number): Promise<McpStartTimes> {
  const requestInit = { headers: { 'X-Mcp-Api-Key': opts.key } };
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      transport === 'sse'
        ? new SSEClientTransport(new URL(`${opts.gatewayUrl}/api/v1/mcp/sse`), { requestInit })
        : new StreamableHTTPClientTransport(new URL(`${opts.gatewayUrl}/api/v1/mcp`), { requestInit }),
    );
    await client.listTools();
    const result = await client.callTool({ name: 'wikiGetDocument', arguments: { documentId: opts.documentId } });
    if (result.isError) throw new Error(`wikiGetDocument failed: ${JSON.stringify(result.content)}`);
    times.push(performance.now() - started);
    await client.close();
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(times[Math.ceil(times.length * p) - 1] * 10) / 10;
  return { transport, runs, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: Math.round(times[times.length - 1] * 10) / 10 };
}

export async function benchMcp(opts: McpBenchOptions): Promise<{ rows: LoadResult[]; start: McpStartTimes[] }> {
  const rows: LoadResult[] = [];
  const headers = {
    'x-mcp-api-key': opts.key,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = (body: string) => ({ autocannon: { method: 'POST' as const, body } });
  const list = rpc('tools/list', {});
  const call = rpc('tools/call', { name: 'wikiGetDocument', arguments: { documentId: opts.documentId } });
  for (const connections of [10, 50]) {
    for (const [scenario, url, h, more] of [
      ['hello-world', `${opts.helloUrl}/`, undefined, {}],
      ['mcp tools/list', `${opts.gatewayUrl}/api/v1/mcp`, headers, post(list)],
      ['mcp wikiGetDocument', `${opts.gatewayUrl}/api/v1/mcp`, headers, post(call)],
    ] as const) {
      opts.log(`${scenario}: ${connections} connections, ${opts.durationS} s`);
      const row = await load(scenario, url, {
        connections,
        durationS: opts.durationS,
        headers: h,
        cpuMeters: opts.cpuMeters,
        ...more,
      });
      opts.log(
        `${scenario}: ${row.requestsPerSec} req/s, p50 ${row.latencyP50Ms} ms, p99 ${row.latencyP99Ms} ms, errors ${row.errors + row.non2xx}`,
      );
      rows.push(row);
    }
  }
  const start = [await startTimes(opts, 'http', 20), await startTimes(opts, 'sse', 20)];
  for (const s of start)
    opts.log(
      `mcp client start over ${s.transport} (connect, tools/list, one call): p50 ${s.p50Ms} ms, p95 ${s.p95Ms} ms, max ${s.maxMs} ms`,
    );
  return { rows, start };
}
