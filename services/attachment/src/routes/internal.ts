import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { AppError, errorResponses, object, Type, uuid } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { embeddableImage } from '../commands/images.js';
import type { AttachmentContext } from '../context.js';

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
}
