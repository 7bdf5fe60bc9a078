import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { ServiceClient } from '@wiki/service-client';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { AsUserClient, Caller } from '../clients/as-user.js';
import { PeerUnavailable } from '../clients/as-user.js';
import { SERVER_INSTRUCTIONS, TOOLS } from './definitions.js';
import { HANDLERS, type ToolContext, ToolError } from './handlers.js';

const ajv = new Ajv({ allErrors: false, strict: false });
const VALIDATORS = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
const LISTED = { tools: TOOLS };
/**
 * The SDK server makes its own Ajv instance (for elicitation, which this server never uses) unless
 * given one; sharing one makes a server per request about five times cheaper to build.
 */
const SDK_VALIDATOR = new AjvJsonSchemaValidator();
const UUID_ARGS = ['workspaceId', 'documentId', 'parentId'];

/** How the MCP server finds who is calling: the transport puts it into the request's authInfo. */
export interface CallerAuth {
  token: string;
  clientId: string;
  scopes: string[];
  extra: { requestId?: string };
}

export function authInfoOf(caller: Caller): CallerAuth {
  return { token: caller.identityToken, clientId: caller.userId, scopes: [], extra: { requestId: caller.requestId } };
}

export interface ToolDeps {
  users: AsUserClient;
  peers: ServiceClient;
  logger: { error(obj: object, msg?: string): void };
  version: string;
}

const resultOf = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const errorResult = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify({ error: message }) }],
  isError: true,
});

function argumentProblem(error: ErrorObject | undefined): string {
  if (!error) return 'Invalid arguments';
  const name = error.instancePath.replace(/^\//, '');
  switch (error.keyword) {
    case 'required':
      return `Missing parameter ${(error.params as { missingProperty: string }).missingProperty}`;
    case 'additionalProperties':
      return `Unknown parameter ${(error.params as { additionalProperty: string }).additionalProperty}`;
    case 'pattern':
      return UUID_ARGS.includes(name) ? `${name} must be a UUID` : `${name} must be a whole number`;
    default:
      return `${name || 'arguments'} ${error.message ?? 'is not valid'}`;
  }
}

/** Runs one tool call; every failure is a result whose text is `{"error": "..."}` (spec 7). */
export async function callTool(
  name: string,
  rawArgs: unknown,
  caller: Caller,
  deps: ToolDeps,
): Promise<CallToolResult> {
  const handler = HANDLERS[name];
  const validate = VALIDATORS.get(name);
  if (!handler || !validate) return errorResult(`Unknown tool ${name}`);
  const args = { ...((rawArgs ?? {}) as Record<string, unknown>) };
  if (!validate(args)) return errorResult(argumentProblem(validate.errors?.[0]));
  for (const key of UUID_ARGS) if (typeof args[key] === 'string') args[key] = (args[key] as string).toLowerCase();
  const ctx: ToolContext = { caller, users: deps.users, peers: deps.peers };
  try {
    return resultOf(await handler(args, ctx));
  } catch (error) {
    if (error instanceof ToolError || error instanceof PeerUnavailable) return errorResult(error.message);
    // The kit's peers client answers an outage as a 503 AppError.
    if ((error as { code?: string }).code === 'SERVICE_UNAVAILABLE') return errorResult((error as Error).message);
    deps.logger.error({ err: error, tool: name }, 'tool failed');
    return errorResult('The tool failed unexpectedly; try again later');
  }
}

/**
 * One MCP server per connection (SSE) or per request (Streamable HTTP, stateless): an SDK server
 * serves one transport at a time. Cheap: the tool list and validators are built once per process.
 */
export function createMcpServer(deps: ToolDeps): Server {
  const server = new Server(
    { name: 'wiki', title: 'Wiki', version: deps.version },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS, jsonSchemaValidator: SDK_VALIDATOR },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => LISTED);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const auth = extra.authInfo as CallerAuth | undefined;
    if (!auth) return errorResult('Not authenticated');
    const caller: Caller = { identityToken: auth.token, userId: auth.clientId, requestId: auth.extra?.requestId };
    return callTool(request.params.name, request.params.arguments, caller, deps);
  });
  return server;
}
