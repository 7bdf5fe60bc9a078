import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { envelope, errorResponses, idParams, nullable, nullableUuid, object, success, Type, uuid } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { importDocuments } from '../commands/import-documents.js';
import { rollbackImport } from '../commands/rollback-import.js';
import type { DocumentContext } from '../context.js';
import { IMPORT_MAX_DOCUMENTS } from '../domain/import-batch.js';
import { ICON_MAX, TITLE_MAX } from './schemas.js';

/**
 * One import call's body at most: room for many documents, while each document's content keeps the
 * public limit (2 MiB, a 413 naming it). A larger import splits its documents over several calls.
 */
export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

const importedDocument = object(
  {
    id: uuid,
    parentId: nullableUuid,
    title: Type.String({ maxLength: TITLE_MAX }),
    content: Type.Unknown({
      description: 'Block-editor JSON: an array of blocks, or a string holding one (max 2 MiB)',
    }),
    icon: nullable(Type.String({ maxLength: ICON_MAX })),
    position: Type.Integer({ description: 'Order among its siblings, ascending (ties: the order of the call)' }),
  },
  ['id'],
);

const importBody = object(
  {
    importId: uuid,
    workspaceId: uuid,
    parentId: nullableUuid,
    userId: uuid,
    documents: Type.Array(importedDocument, { minItems: 1, maxItems: IMPORT_MAX_DOCUMENTS }),
  },
  ['importId', 'workspaceId', 'userId', 'documents'],
);

/**
 * For the export service's import job (ARCHITECTURE 5.19), by a `service` identity only; the
 * gateway routes no `/internal` path without `/api/v1` (it never reaches these).
 */
export function registerImportRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/internal/documents/import',
    {
      onRequest: requireKind('service'),
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        hide: true,
        body: importBody,
        response: {
          200: envelope(object({ documentIds: Type.Array(uuid), created: Type.Integer() })),
          ...errorResponses(400, 401, 403, 404, 'DOCUMENT_ID_TAKEN', 413),
        },
      },
    },
    async (request) => {
      const body = request.body;
      // Compared as text with what Postgres answers (lower case).
      return success(
        await importDocuments(ctx, {
          importId: body.importId.toLowerCase(),
          workspaceId: body.workspaceId.toLowerCase(),
          parentId: body.parentId?.toLowerCase() ?? null,
          userId: body.userId.toLowerCase(),
          documents: body.documents,
          requestId: request.id,
        }),
      );
    },
  );

  app.delete(
    '/internal/documents/import/:importId',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        params: idParams('importId'),
        querystring: object({ userId: uuid }, ['userId']),
        response: {
          200: envelope(object({ documentIds: Type.Array(uuid), keptIds: Type.Array(uuid) })),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) =>
      success(await rollbackImport(ctx, request.params.importId.toLowerCase(), request.query.userId.toLowerCase())),
  );
}
