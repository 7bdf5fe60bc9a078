import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { envelope, errorResponses, idParams, object, success, Type, uuid } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { upload } from '../commands/attachments.js';
import { removeImport } from '../commands/imports.js';
import type { AttachmentContext } from '../context.js';
import { presentAttachment } from '../presenters/attachment.js';
import { formReader, multipartOptions, refuseLargeBody } from './attachments.js';
import { oneAttachment } from './schemas.js';

/**
 * For the export service's import job (ARCHITECTURE 5.19), by a `service` identity only (the
 * gateway routes no `/internal` path): files stored for documents the import is about to make.
 */
export async function registerImportUploadRoutes(server: FastifyInstance, ctx: AttachmentContext): Promise<void> {
  await server.register(async (scope) => {
    await scope.register(multipart, multipartOptions(ctx));
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    // multipart/form-data: workspaceId, documentId, userId (who imports: EDITOR+), importId
    // (optional: the rollback's handle), fileName (optional: else the file part's name), file.
    // The upload's own rules otherwise: size limit, type from the bytes, images cleaned.
    app.post(
      '/internal/attachments',
      {
        onRequest: [requireKind('service'), refuseLargeBody(ctx)],
        schema: {
          hide: true,
          consumes: ['multipart/form-data'],
          response: { 201: oneAttachment, ...errorResponses(400, 401, 403, 404, 'DOCUMENT_ARCHIVED', 413, 415) },
        },
      },
      async (request, reply) => {
        const read = formReader(request, ['workspaceId', 'documentId', 'userId', 'importId', 'fileName']);
        const row = await upload(ctx, { kind: 'import', requestId: request.id }, read);
        return reply.status(201).send(success(presentAttachment(row)));
      },
    );

    app.delete(
      '/internal/attachments/import/:importId',
      {
        onRequest: requireKind('service'),
        schema: {
          hide: true,
          params: idParams('importId'),
          querystring: object({ userId: uuid }, ['userId']),
          response: {
            200: envelope(object({ attachmentIds: Type.Array(uuid) })),
            ...errorResponses(400, 401, 403),
          },
        },
      },
      async (request) => {
        const { importId } = request.params;
        return success({ attachmentIds: await removeImport(ctx, importId.toLowerCase(), request.query.userId) });
      },
    );
  });
}
