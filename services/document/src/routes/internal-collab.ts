import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import {
  AppError,
  badRequest,
  envelope,
  errorResponses,
  idParams,
  object,
  SUCCESS_VOID,
  success,
  Type,
  voidEnvelope,
} from '@wiki/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type CollabSave, collabContent, collabState, permissionOf, saveCollab } from '../commands/collab.js';
import type { DocumentContext } from '../context.js';

export const MAX_COLLAB_STATE_BYTES = 10 * 1024 * 1024;
/** jsonContent may be as large as content (2 MiB); leave room for escaping and plainText. */
const MAX_FIELD_BYTES = 3 * 1024 * 1024;
const TEXT_FIELDS = ['plainText', 'jsonContent', 'idpUid', 'contentRevision', 'editorIdpUids'] as const;
/** The most editors one save names (ARCHITECTURE 5.16): the collab server sends at most this many. */
export const MAX_SAVE_EDITORS = 50;
/** The content revision a state was built on travels as this response header. */
export const CONTENT_REVISION_HEADER = 'x-content-revision';

const tags = ['Internal (collaboration server)'];
const params = idParams('documentId');
const security = [{ internalApiKey: [] }];

/** Reads the multipart form of a save, keeping the state's bytes exactly as sent. */
async function readSave(request: FastifyRequest): Promise<CollabSave> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Expected multipart/form-data');
  let state: Buffer | undefined;
  const fields: Partial<Record<(typeof TEXT_FIELDS)[number], string>> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) {
        throw badRequest(`${part.fieldname} must be sent as a text field`, [
          { field: part.fieldname, message: 'must be a text field, not a file' },
        ]);
      }
      if (part.fieldname !== 'collabState') {
        part.file.resume(); // not ours: drain it
        continue;
      }
      state = await part.toBuffer(); // throws a 413 past the file size limit
    } else if (part.fieldname === 'collabState') {
      throw badRequest('collabState must be sent as a file part', [
        { field: 'collabState', message: 'must be a file' },
      ]);
    } else if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) {
      if (part.valueTruncated) throw new AppError('PAYLOAD_TOO_LARGE', `${part.fieldname} is too large`);
      fields[part.fieldname as (typeof TEXT_FIELDS)[number]] = String(part.value);
    }
  }
  if (!state) throw badRequest('collabState is required', [{ field: 'collabState', message: 'is required' }]);
  const revision = fields.contentRevision;
  if (revision !== undefined && !/^\d{1,15}$/.test(revision)) {
    throw badRequest('contentRevision must be a whole number', [
      { field: 'contentRevision', message: 'must be a whole number' },
    ]);
  }
  // An empty (or blank) jsonContent or idpUid is the same as none: it must not wipe the content.
  return {
    editorIdpUids: editorsOf(fields.editorIdpUids),
    contentRevision: revision === undefined ? undefined : Number(revision),
    state,
    plainText: fields.plainText,
    jsonContent: fields.jsonContent?.trim() ? fields.jsonContent : undefined,
    idpUid: fields.idpUid || undefined,
  };
}

/** editorIdpUids: a JSON array of at most MAX_SAVE_EDITORS identity-provider uids; absent or empty is none. */
function editorsOf(field: string | undefined): string[] | undefined {
  if (field === undefined || field.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(field);
  } catch {
    value = null;
  }
  const isUid = (uid: unknown) => typeof uid === 'string' && uid.length > 0 && uid.length <= 255;
  if (!Array.isArray(value) || value.length > MAX_SAVE_EDITORS || !value.every(isUid)) {
    throw badRequest('editorIdpUids must be a JSON array of user ids', [
      { field: 'editorIdpUids', message: `must be a JSON array of at most ${MAX_SAVE_EDITORS} non-empty strings` },
    ]);
  }
  return value as string[];
}

/** Spec 4.10 / ARCHITECTURE 5.11: only for the `internal` credential (the gateway checked X-Internal-Api-Key). */
export async function registerCollabRoutes(app: FastifyInstance, ctx: DocumentContext): Promise<void> {
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await scope.register(multipart, {
      // files: room for a text field wrongly sent as a file, so that it gets a 400 naming it.
      limits: {
        fileSize: MAX_COLLAB_STATE_BYTES,
        files: 1 + TEXT_FIELDS.length,
        fields: 10,
        fieldSize: MAX_FIELD_BYTES,
        parts: 20,
      },
    });
    scope.addHook('onRequest', requireKind('internal'));

    scope.get(
      '/api/v1/internal/documents/:documentId/permission',
      {
        schema: {
          tags,
          security,
          summary: 'Whether a user (idp uid or local id) may edit the document',
          params,
          querystring: object({ userId: Type.String({ minLength: 1, maxLength: 255 }) }, ['userId']),
          response: {
            200: envelope(
              object({
                canEdit: Type.Boolean(),
                role: Type.String(),
                workspaceId: Type.String({ format: 'uuid' }),
              }),
            ),
            ...errorResponses(400, 401, 403, 404),
          },
        },
      },
      async (request) => {
        const { documentId } = request.params;
        const { userId } = request.query;
        return success(await permissionOf(ctx, documentId, userId, request.id));
      },
    );

    scope.get(
      '/api/v1/internal/documents/:documentId/collab-state',
      {
        schema: {
          tags,
          security,
          summary:
            'The stored collaboration state (binary); 204 when none or stale. Header x-content-revision: the revision to save with',
          params,
          response: {
            200: Type.Unsafe<Buffer>({ description: 'The state (application/octet-stream)' }),
            204: Type.Unsafe<undefined>({ type: 'null', description: 'No state, or a stale one' }),
            ...errorResponses(400, 401, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const { state, contentRevision } = await collabState(ctx, request.params.documentId);
        reply.header(CONTENT_REVISION_HEADER, String(contentRevision));
        if (!state) return reply.status(204).send();
        return reply.type('application/octet-stream').header('content-length', state.length).send(state);
      },
    );

    scope.get(
      '/api/v1/internal/documents/:documentId/content',
      {
        schema: {
          tags,
          security,
          summary: 'The block content (JSON string) and its content revision, to rebuild a collaboration room',
          params,
          response: {
            200: envelope(object({ content: Type.String(), contentRevision: Type.Integer({ minimum: 0 }) })),
            ...errorResponses(400, 401, 403, 404),
          },
        },
      },
      async (request) => success(await collabContent(ctx, request.params.documentId)),
    );

    scope.post(
      '/api/v1/internal/documents/:documentId/collab-state',
      {
        schema: {
          tags,
          security,
          summary:
            'Store the collaboration state (multipart: collabState file; plainText, jsonContent, idpUid, contentRevision, editorIdpUids fields; 409 when the content moved on)',
          consumes: ['multipart/form-data'],
          params,
          response: {
            200: voidEnvelope,
            ...errorResponses(400, 401, 403, 404, 413, 415, 'DOCUMENT_ARCHIVED', 'CONTENT_CHANGED'),
          },
        },
      },
      async (request) => {
        const { documentId } = request.params;
        await saveCollab(ctx, documentId, await readSave(request), request.log, request.id);
        return SUCCESS_VOID;
      },
    );
  });
}
