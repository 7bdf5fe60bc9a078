import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { errorResponses, listOf, nullable, object, success, Type, uuid, withDefault } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { FastifyInstance } from 'fastify';
import type { SearchEngine } from '../engines/engine.js';

/** Longer queries are refused: no one types this much, and each word costs the index a look-up. */
export const QUERY_MAX_LENGTH = 1000;

const searchQuery = object(
  {
    workspaceId: uuid,
    query: Type.String({ maxLength: QUERY_MAX_LENGTH }),
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 50 }), 20),
  },
  ['workspaceId', 'query'],
);

/** SearchResultResponse (spec 4.4). */
const searchResult = object(
  {
    id: uuid,
    title: Type.String(),
    icon: nullable(Type.String()),
    parentId: nullable(uuid),
    snippet: Type.String({ description: 'HTML-escaped text with the matched terms wrapped in <mark> tags' }),
    matchField: Type.String({ enum: ['title', 'content'] }),
  },
  ['id', 'title', 'icon', 'parentId', 'snippet', 'matchField'],
);

export interface SearchRouteDeps {
  engine: SearchEngine;
  access: MembershipAccess;
}

export function registerSearchRoutes(server: FastifyInstance, { engine, access }: SearchRouteDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/documents/search',
    {
      schema: {
        tags: ['Search'],
        summary:
          'Full-text search of the documents of a workspace the caller belongs to, best first (never archived ones)',
        querystring: searchQuery,
        response: {
          200: listOf(searchResult),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      const { workspaceId, query, limit } = request.query;
      // Any member may search; a non-member learns nothing, not even that the workspace exists.
      await access.requireRole(workspaceId, actor.userId, 'VIEWER', 'Workspace', actor.requestId);
      return success(await engine.search({ workspaceId, query, limit }));
    },
  );
}
