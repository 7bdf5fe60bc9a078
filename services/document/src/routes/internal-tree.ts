import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { envelope, errorResponses, nullableUuid, object, success, Type, uuid } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { DocumentContext } from '../context.js';
import { workspaceOutline } from '../db/outline.js';

/**
 * A workspace's visible documents (not archived) as a flat list in sibling order, ids, parents and
 * titles only: what the export worker walks to write a tree as a zip (ARCHITECTURE 5.19). Not
 * routed by the gateway.
 */
export function registerTreeServiceRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/internal/documents/tree',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: object({ workspaceId: uuid }, ['workspaceId']),
        response: {
          200: envelope(
            object({
              documents: Type.Array(object({ id: uuid, parentId: nullableUuid, title: Type.String() })),
            }),
          ),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => success({ documents: await workspaceOutline(ctx.pool, request.query.workspaceId) }),
  );
}
