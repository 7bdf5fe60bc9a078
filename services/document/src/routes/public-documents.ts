import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, idParams, listOf, success } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { DocumentContext } from '../context.js';
import { presentPublicDocument, presentPublicListItem } from '../presenters/documents.js';
import { getPublicDocument, publicAncestors, publicChildren } from '../queries/public-documents.js';
import { publicDocumentResponse, publicListItemResponse } from './schemas.js';

const tags = ['Public documents'];
const params = idParams('documentId');

/** Spec 4.5: no authentication; only published, not archived documents. */
export function registerPublicRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/public/documents/:documentId',
    {
      schema: {
        tags,
        security: [],
        summary: 'A published document',
        params,
        response: { 200: envelope(publicDocumentResponse), ...errorResponses(400, 404) },
      },
    },
    async (request) => success(presentPublicDocument(await getPublicDocument(ctx, request.params.documentId))),
  );

  app.get(
    '/api/v1/public/documents/:documentId/children',
    {
      schema: {
        tags,
        security: [],
        summary: 'Its published children',
        params,
        response: { 200: listOf(publicListItemResponse), ...errorResponses(400, 404) },
      },
    },
    async (request) => success((await publicChildren(ctx, request.params.documentId)).map(presentPublicListItem)),
  );

  app.get(
    '/api/v1/public/documents/:documentId/ancestors',
    {
      schema: {
        tags,
        security: [],
        summary: 'The unbroken chain of published ancestors above it, from the top, ending with it',
        params,
        response: { 200: listOf(publicListItemResponse), ...errorResponses(400, 404) },
      },
    },
    async (request) => success((await publicAncestors(ctx, request.params.documentId)).map(presentPublicListItem)),
  );
}
