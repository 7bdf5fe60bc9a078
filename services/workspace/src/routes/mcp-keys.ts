import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireUser } from '@wiki/auth';
import { envelope, errorResponses, idParams, listOf, notBlank, object, success } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { createMcpKey, deleteMcpKey, listMcpKeys } from '../commands/mcp-keys.js';
import { presentCreatedMcpKey, presentMcpKey } from '../presenters/mcp-key.js';
import { createdMcpKeyResponse, mcpKeyResponse, noContent } from './schemas.js';

const tags = ['MCP keys'];

export function registerMcpKeyRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/users/me/mcp-keys',
    {
      schema: {
        tags,
        summary: 'Create an MCP key; the key is in this answer only (only its SHA-256 is stored)',
        body: object({ name: notBlank(100) }, ['name']),
        response: { 201: envelope(createdMcpKeyResponse), ...errorResponses(400, 401, 'MCP_KEY_LIMIT') },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      const { row, key } = await createMcpKey(ctx, userId, request.body.name);
      return reply.status(201).send(success(presentCreatedMcpKey(row, key)));
    },
  );

  app.get(
    '/api/v1/users/me/mcp-keys',
    {
      schema: {
        tags,
        summary: "The caller's MCP keys (without the keys themselves)",
        response: { 200: listOf(mcpKeyResponse), ...errorResponses(401) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success((await listMcpKeys(ctx, userId)).map(presentMcpKey));
    },
  );

  app.delete(
    '/api/v1/users/me/mcp-keys/:id',
    {
      schema: {
        tags,
        summary: 'Revoke an MCP key',
        params: idParams('id'),
        response: { 204: noContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      await deleteMcpKey(ctx, userId, request.params.id);
      return reply.status(204).send();
    },
  );
}
