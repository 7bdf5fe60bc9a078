import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { errorResponses, listOf, success } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { DocumentContext } from '../context.js';
import { presentArchivedItem } from '../presenters/archived-documents.js';
import { archivedDocuments } from '../queries/archived-documents.js';
import { archivedItemResponse, archivedQuery } from './archived-schemas.js';

/** Where archived documents can be found again (restoring is PUT /documents/{id} {isArchived: false}). */
export function registerArchivedRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/documents/archived',
    {
      schema: {
        tags: ['Documents'],
        summary:
          'Documents archived themselves (not those hidden with an archived ancestor), most recently archived first',
        querystring: archivedQuery,
        response: { 200: listOf(archivedItemResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reader = requireActor(request);
      const { workspaceId, limit } = request.query;
      return success((await archivedDocuments(ctx, reader, workspaceId, limit)).map(presentArchivedItem));
    },
  );
}
