import type {} from '@fastify/swagger'; // its schema keywords (tags, summary, security)
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { IDENTITY_HEADER, requireKind, requireUser } from '@wiki/auth';
import { AppError, errorResponses, notFound, object, openObject, Type, uuid } from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../clients/as-user.js';
import { authInfoOf, createMcpServer, type ToolDeps } from '../tools/server.js';
import { type SessionLimit, TOO_MANY_SESSIONS_NOTICE } from '../transport/session-limit.js';
import type { SseSessions } from '../transport/sse-sessions.js';

export const MCP_PATH = '/api/v1/mcp';
export const SSE_PATH = `${MCP_PATH}/sse`;
export const MESSAGES_PATH = `${MCP_PATH}/messages`;

const tags = ['MCP'];
const security = [{ mcpApiKey: [] }];
const onlyMcpKeys = requireKind('mcp');

/** The key's user, and the identity token the gateway made for this request (sent on to peers). */
function callerOf(request: FastifyRequest): Caller {
  const { userId } = requireUser(request);
  return { userId, identityToken: String(request.headers[IDENTITY_HEADER]), requestId: request.id };
}

/** A JSON-RPC message or a batch of them; the SDK checks them against the protocol. */
const jsonRpcBody = Type.Unsafe<unknown>({ type: ['object', 'array'], description: 'JSON-RPC message(s)' });

/** The protocol's 405 to a GET of the MCP path: a JSON-RPC error, not the error envelope. */
const statelessRefusal = {
  ...openObject(
    {
      jsonrpc: Type.String(),
      error: openObject({ code: Type.Integer(), message: Type.String() }, ['code', 'message']),
      id: Type.Unsafe<null>({ type: 'null' }),
    },
    ['jsonrpc', 'error', 'id'],
  ),
  description: 'A JSON-RPC error (as the protocol has it): this server offers no stream; use POST',
};

/**
 * What MCP_SESSIONS_PER_KEY counts by: the key the gateway says was presented; the user, should a
 * gateway that does not say so still run (during a rolling upgrade).
 */
function sessionOwnerOf(request: FastifyRequest, caller: Caller): string {
  return request.identity?.keyId ?? `user:${caller.userId}`;
}

export function registerMcpRoutes(
  app: FastifyInstance,
  deps: ToolDeps & { sessions: SseSessions; sessionLimit: SessionLimit },
): void {
  const { sessions, sessionLimit } = deps;

  // Streamable HTTP, stateless: every request gets a fresh server and transport, so any replica
  // answers any request and nothing outlives it.
  const streamable = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(request);
    const server = createMcpServer(deps);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    // Closing the server closes its transport too.
    reply.raw.on('close', () => void server.close());
    await server.connect(transport);
    Object.assign(request.raw, { auth: authInfoOf(caller) });
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
  app.post(
    MCP_PATH,
    {
      onRequest: onlyMcpKeys,
      schema: {
        tags,
        security,
        summary: 'MCP Streamable HTTP transport (stateless; JSON responses)',
        body: jsonRpcBody,
        response: errorResponses(400, 401, 403, 413, 415, 503),
      },
    },
    streamable,
  );
  app.delete(
    MCP_PATH,
    {
      onRequest: onlyMcpKeys,
      schema: {
        tags,
        security,
        summary: 'Ends a session: a stateless server has none, so this always succeeds',
        response: errorResponses(401, 403, 503),
      },
    },
    streamable,
  );

  // A stateless server has nothing to push: it offers no GET stream, which the protocol answers with 405.
  app.get(
    MCP_PATH,
    {
      onRequest: onlyMcpKeys,
      schema: {
        tags,
        security,
        summary: 'No server-initiated stream (405, as the protocol has it): the server is stateless',
        response: { ...errorResponses(401, 403, 503), 405: statelessRefusal },
      },
    },
    // The protocol's own answer (a JSON-RPC error, as the SDK words it), which clients expect here.
    async (_request, reply) =>
      reply
        .status(405)
        .header('allow', 'POST, DELETE')
        .send({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this server is stateless, use POST' },
          id: null,
        }),
  );

  app.get(
    SSE_PATH,
    {
      onRequest: onlyMcpKeys,
      schema: {
        tags,
        security,
        summary: 'MCP SSE transport: the event stream (its first event names the messages URL)',
        response: errorResponses(401, 403, 503),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      // Told to end before it has started (a newer session came at once): ended once it has.
      let started = false;
      let pushedOut = false;
      const endPushedOut = () => {
        reply.raw.write(TOO_MANY_SESSIONS_NOTICE);
        void transport.close();
      };
      const slot = await sessionLimit.admit(sessionOwnerOf(request, caller), () => {
        pushedOut = true;
        if (started) endPushedOut();
      });
      reply.hijack();
      if (reply.raw.destroyed) {
        // The client left while its slot was taken.
        slot.release();
        return;
      }
      const transport = new SSEServerTransport(MESSAGES_PATH, reply.raw);
      const server = createMcpServer(deps);
      // Proxies must not buffer the stream.
      reply.raw.setHeader('x-accel-buffering', 'no');
      await sessions.add(transport, caller.userId, (chunk) => reply.raw.write(chunk));
      // Set before connect: the server chains its own clean-up after it.
      transport.onclose = () => {
        sessions.remove(transport.sessionId);
        slot.release();
      };
      await server.connect(transport);
      started = true;
      // A client that left before the stream started was never heard leaving: end it here.
      if (reply.raw.destroyed) void transport.close();
      else if (pushedOut) endPushedOut();
    },
  );

  app.post(
    MESSAGES_PATH,
    {
      onRequest: onlyMcpKeys,
      schema: {
        tags,
        security,
        summary: 'MCP SSE transport: a message for the session of an open stream (any replica takes it)',
        querystring: object({ sessionId: uuid }, ['sessionId']),
        body: jsonRpcBody,
        response: {
          202: Type.Unsafe<null>({ type: 'null', description: 'Accepted: the answer comes on the stream' }),
          ...errorResponses(400, 401, 403, 404, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { sessionId } = request.query as { sessionId: string };
      const delivery = await sessions.deliver(sessionId, caller, request.body);
      switch (delivery) {
        case 'accepted':
          return reply.status(202).send(null);
        case 'not-found':
          throw notFound('MCP session');
        case 'too-large':
          throw new AppError(
            'PAYLOAD_TOO_LARGE',
            'This message is too large to reach its session: use the Streamable HTTP transport',
          );
        case 'invalid':
          throw new AppError('VALIDATION_ERROR', 'The body is not a JSON-RPC message');
        case 'too-deep':
          throw new AppError('VALIDATION_ERROR', 'The body is nested too deeply to reach its session');
        case 'no-answer':
          throw new AppError('SERVICE_UNAVAILABLE', 'The replica holding this MCP session did not answer; try again');
      }
    },
  );
}
