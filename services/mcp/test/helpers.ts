import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectStatus, type SignedInUser, type Stack } from '@wiki/testing';
import { Agent, fetch as undiciFetch } from 'undici';
import { startPlatform } from '../../../test/platform.js';

/**
 * The clients' connections, destroyed before the stack stops: an open stream or an idle keep-alive
 * connection of the test's own would otherwise hold the gateway's graceful close. A new agent
 * takes over at once, for the next file that shares these modules.
 */
const newAgent = () => new Agent({ keepAliveTimeout: 1_000 });
let clientAgent = newAgent();
export const clientFetch = ((input: string | URL | Request, init?: RequestInit) =>
  undiciFetch(input as string, { ...(init as object), dispatcher: clientAgent })) as unknown as typeof fetch;
export const closeClientConnections = () => {
  const closing = clientAgent;
  clientAgent = newAgent();
  return closing.destroy();
};

export type TransportKind = 'sse' | 'http';
export const TRANSPORTS: TransportKind[] = ['http', 'sse'];

/** Gateway → MCP, and the services its tools call: workspace, document, search. */
export function startMcpStack(env: Record<string, string> = {}): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'search', 'mcp'], { env });
}

export interface McpKey {
  id: string;
  key: string;
}

/** A new MCP key of `user`, made through the REST API as a user would. */
export async function mcpKeyOf(stack: Stack, user: SignedInUser): Promise<McpKey> {
  const res = await stack.request('POST', '/api/v1/users/me/mcp-keys', {
    token: user.token,
    body: { name: 'assistant' },
  });
  const { id, key } = expectStatus(res, 201, 'create an MCP key').body.data;
  return { id, key };
}

export interface Connected {
  client: Client;
  /** Calls a tool and answers the parsed JSON of its one text item, and whether it is an error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; json: any; text: string }>;
  close(): Promise<void>;
}

/** The SDK's own client over `kind`, through the gateway, with `key`. */
export async function connect(
  stack: Stack,
  key: string,
  kind: TransportKind,
  fetchImpl: typeof fetch = clientFetch,
): Promise<Connected> {
  const requestInit = { headers: { 'X-Mcp-Api-Key': key } };
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(new URL(`${stack.gatewayUrl}/api/v1/mcp/sse`), { requestInit, fetch: fetchImpl })
      : new StreamableHTTPClientTransport(new URL(`${stack.gatewayUrl}/api/v1/mcp`), { requestInit, fetch: fetchImpl });
  const client = new Client({ name: 'wiki-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    // A refused stream must not stay open behind the failure (it would hold the gateway's shutdown).
    await transport.close().catch(() => undefined);
    throw error;
  }
  return {
    client,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text: string }>;
      };
      if (result.content.length !== 1 || result.content[0].type !== 'text') {
        throw new Error(`${name} answered ${JSON.stringify(result)}`);
      }
      const text = result.content[0].text;
      return { isError: result.isError === true, json: JSON.parse(text), text };
    },
    close: () => client.close(),
  };
}
