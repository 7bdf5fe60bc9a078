import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import {
  envelope,
  errorResponses,
  idParams,
  notFound,
  nullable,
  nullableUuid,
  object,
  success,
  Type,
  timestamp,
  uuid,
} from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { DocumentContext } from '../context.js';
import { findContent, findState } from '../db/documents.js';
import { findWholeDocument } from '../db/whole-document.js';
import { streamDocuments } from '../queries/document-stream.js';

/** For other services (e.g. comments): what a document is, by a `service` identity. Not routed by the gateway. */
export function registerServiceRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  // Every document (or one workspace's) in id order, for rebuilding a search index
  // (npm run reindex): NDJSON, one document a line, read page by page as the caller reads, so
  // neither side holds the table. The last line is {"done":true,"count":n}: an answer without it
  // was cut. `after` resumes after the last id a caller kept; `limit` caps this answer.
  app.get(
    '/internal/documents/stream',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: object({
          workspaceId: uuid,
          after: uuid,
          limit: Type.Integer({ minimum: 1 }),
        }),
        response: {
          200: Type.Unsafe<Readable>({ description: 'NDJSON: one document a line, then {"done":true,"count":n}' }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const documents = streamDocuments(ctx.pool, request.query);
      async function* lines(): AsyncGenerator<string> {
        let count = 0;
        for await (const doc of documents) {
          count += 1;
          yield `${JSON.stringify(doc)}\n`;
        }
        yield `${JSON.stringify({ done: true, count })}\n`;
      }
      return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines()));
    },
  );

  app.get(
    '/internal/documents/:id',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        params: idParams('id'),
        response: {
          200: envelope(
            object({
              id: uuid,
              workspaceId: uuid,
              parentId: nullableUuid,
              title: Type.String(),
              isArchived: Type.Boolean(),
              isPublished: Type.Boolean(),
            }),
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const doc = await findState(ctx.pool, request.params.id);
      if (!doc) throw notFound('Document');
      return success({
        id: doc.id,
        workspaceId: doc.workspaceId,
        parentId: doc.parentId,
        title: doc.title,
        isArchived: doc.isArchived,
        isPublished: doc.isPublished,
      });
    },
  );

  // The block content as stored (a string holding the JSON array), for the export service's
  // workers: they render what the document holds now, the export API having checked the caller.
  app.get(
    '/internal/documents/:id/content',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        params: idParams('id'),
        response: {
          200: envelope(
            object({
              id: uuid,
              workspaceId: uuid,
              title: Type.String(),
              content: Type.String(),
              isArchived: Type.Boolean(),
              updatedAt: timestamp,
            }),
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const doc = await findContent(ctx.pool, request.params.id);
      if (!doc) throw notFound('Document');
      return success(doc);
    },
  );

  // The whole plain text of a document, for a consumer whose event carried it cut
  // (plainTextTruncated: events carry at most EVENT_TEXT_MAX_BYTES of it), with what an index
  // shows beside it (place, icon, archived), so a consumer that missed a document's creation can
  // index it whole. Always today's state: a consumer that fetches it late gets the newer version,
  // with the updatedAt to tell.
  app.get(
    '/internal/documents/:id/text',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        params: idParams('id'),
        response: {
          200: envelope(
            object({
              id: uuid,
              workspaceId: uuid,
              createdBy: uuid,
              parentId: nullableUuid,
              title: Type.String(),
              icon: nullable(Type.String()),
              plainText: Type.String(),
              archived: Type.Boolean(),
              updatedAt: timestamp,
            }),
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const doc = await findWholeDocument(ctx.pool, request.params.id);
      if (!doc) throw notFound('Document');
      return success(doc);
    },
  );
}
