import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { AppError, envelope, errorResponses, listOf, object, success, Type, uuid, withDefault } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { embeddableImage, exportableFile } from '../commands/images.js';
import type { AttachmentContext } from '../context.js';
import { findText, textPage } from '../db/attachment-texts.js';
import { findById } from '../db/attachments.js';

const imageQuery = object(
  {
    url: Type.String({ minLength: 1, maxLength: 1024 }),
    workspaceId: uuid,
    // The caller's own cap: a file over it is refused from its record, before a byte is read.
    maxBytes: Type.Integer({ minimum: 1 }),
  },
  ['url', 'workspaceId', 'maxBytes'],
);

/** For other services, by a `service` identity; not routed by the gateway. */
export function registerInternalRoutes(server: FastifyInstance, ctx: AttachmentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  // An image's bytes for the export worker to embed, streamed from the store as they are read.
  app.get(
    '/internal/attachments/image',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: imageQuery,
        response: {
          200: Type.Unsafe<Readable>({ description: 'The image, with its stored type' }),
          ...errorResponses(400, 401, 403, 404, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { url, workspaceId, maxBytes } = request.query;
      const row = await embeddableImage(ctx, url, workspaceId, maxBytes);
      const body = await ctx.storage.get(row.storageKey);
      if (!body) {
        ctx.logger.error({ key: row.storageKey, id: row.id }, 'attachment object missing');
        throw new AppError('NOT_FOUND', 'File not found');
      }
      return reply
        .type(row.mimeType)
        .header('content-length', row.fileSize)
        .header('x-content-type-options', 'nosniff')
        .send(body);
    },
  );

  // Any file's bytes for a tree export's zip (attachments written as files beside the documents).
  app.get(
    '/internal/attachments/file',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: imageQuery,
        response: {
          200: Type.Unsafe<Readable>({ description: 'The file, with its stored type' }),
          ...errorResponses(400, 401, 403, 404, 413),
        },
      },
    },
    async (request, reply) => {
      const { url, workspaceId, maxBytes } = request.query;
      const row = await exportableFile(ctx, url, workspaceId, maxBytes);
      const body = await ctx.storage.get(row.storageKey);
      if (!body) {
        ctx.logger.error({ key: row.storageKey, id: row.id }, 'attachment object missing');
        throw new AppError('NOT_FOUND', 'File not found');
      }
      return reply
        .type('application/octet-stream')
        .header('content-length', row.fileSize)
        .header('x-content-type-options', 'nosniff')
        .send(body);
    },
  );

  // Every attachment that has text (or one workspace's) in id order, a page at a time, for the
  // search service's reindex; attachment.text_extracted tells it of each new one from then on.
  // Pages are small (default 20, at most 100): each text may be up to ATTACHMENTS_TEXT_MAX_CHARS.
  app.get(
    '/internal/attachments/texts',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: textsQuery,
        response: { 200: listOf(textItem), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => success(await textPage(ctx.pool, request.query)),
  );

  // The text extracted from a file (events/text-extraction.ts), for the search service to index
  // after attachment.text_extracted. 404 until it is extracted, or when the file is gone.
  app.get(
    '/internal/attachments/:id/text',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        params: object({ id: uuid }, ['id']),
        response: { 200: attachmentText, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const row = await findById(ctx.pool, request.params.id);
      const text = row && (await findText(ctx.pool, row.id));
      if (!row || !text || text.status !== 'text') throw new AppError('NOT_FOUND', 'No text for this attachment');
      return {
        success: true,
        data: {
          id: row.id,
          documentId: row.documentId,
          workspaceId: row.workspaceId,
          fileName: row.fileName,
          text: text.text,
          truncated: text.truncated,
        },
      };
    },
  );
}

const textItem = object(
  {
    id: uuid,
    documentId: uuid,
    workspaceId: uuid,
    fileName: Type.String(),
    text: Type.String(),
    truncated: Type.Boolean(),
  },
  ['id', 'documentId', 'workspaceId', 'fileName', 'text', 'truncated'],
);
const attachmentText = envelope(textItem);

const textsQuery = object({
  workspaceId: uuid,
  after: uuid,
  limit: withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 20),
});
