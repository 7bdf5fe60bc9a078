import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  AppError,
  errorBody,
  errorResponse,
  errorResponses,
  idParams,
  SUCCESS_VOID,
  success,
  Type,
  voidEnvelope,
} from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listForDocument, readableFile, remove, type UploadForm, upload } from '../commands/attachments.js';
import type { AttachmentContext } from '../context.js';
import type { AttachmentRow } from '../db/attachments.js';
import { contentDisposition } from '../domain/file-name.js';
import { etagOf, noneMatch, rangeOf } from '../domain/http-cache.js';
import { isInlineImage } from '../domain/sniff.js';
import { presentAttachment } from '../presenters/attachment.js';
import { attachmentList, fileQuery, oneAttachment } from './schemas.js';

const tags = ['Attachments'];
const BASE = '/api/v1/attachments';
const errors = errorResponses(400, 401, 403, 404);

/** Room for the form around the file (boundaries, part headers, the two ids). */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The text fields each upload form reads (others are ignored). */
type FormField = Exclude<keyof UploadForm, 'file'>;
const UPLOAD_FIELDS: readonly FormField[] = ['workspaceId', 'documentId'];

/**
 * Reads the multipart body part by part. The file's stream is handed to `onFile` as it arrives
 * (never buffered), with the ids when they came first; other parts are ignored.
 */
export function formReader(request: FastifyRequest, fields: readonly FormField[] = UPLOAD_FIELDS) {
  return async (onFile: (form: UploadForm) => Promise<void>): Promise<UploadForm> => {
    if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Expected multipart/form-data');
    const form: UploadForm = {};
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || form.file) {
          part.file.resume(); // not ours: let it go by
          continue;
        }
        const stream = part.file;
        form.file = { stream, fileName: part.filename, truncated: () => stream.truncated };
        try {
          await onFile({ ...form });
        } catch (error) {
          // A refusal before the file was read: let its bytes go by so the answer can be sent.
          if (!stream.readableEnded) stream.resume();
          throw error;
        }
      } else if ((fields as readonly string[]).includes(part.fieldname)) {
        if (part.valueTruncated) throw new AppError('VALIDATION_ERROR', `${part.fieldname} is too long`);
        form[part.fieldname as FormField] = String(part.value);
      }
    }
    return form;
  };
}

/** The multipart parser of an upload route's scope. */
export const multipartOptions = (ctx: AttachmentContext) => ({
  // The size limit cuts the file stream (checked after spooling, see upload); one file part.
  throwFileSizeLimit: false,
  limits: { fileSize: ctx.uploadMaxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 12, headerPairs: 50 },
});

/** A body that announces more than the largest file and its form is refused before it is read. */
export function refuseLargeBody(ctx: AttachmentContext) {
  return async (request: FastifyRequest) => {
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > ctx.uploadMaxBytes + FORM_OVERHEAD_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The file is too large (at most ${ctx.uploadMaxBytes} bytes)`);
    }
  };
}

/** Headers every file answer carries (ARCHITECTURE 5.9), whatever its type or status. */
function safeHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', 'sandbox')
    .header('cross-origin-resource-policy', 'same-site')
    .header('cache-control', 'private, no-cache');
}

async function serveFile(ctx: AttachmentContext, row: AttachmentRow, request: FastifyRequest, reply: FastifyReply) {
  const etag = etagOf(row.sha256);
  safeHeaders(reply)
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header(
      'content-disposition',
      contentDisposition(isInlineImage(row.mimeType) ? 'inline' : 'attachment', row.fileName),
    );
  if (noneMatch(request.headers['if-none-match'], etag)) return reply.status(304).send();

  const ifRange = request.headers['if-range'] as string | undefined;
  const answer = rangeOf(request.headers.range, row.fileSize, ifRange, etag);
  if (answer.kind === 'unsatisfiable') {
    return reply
      .status(416)
      .header('content-range', `bytes */${row.fileSize}`)
      .type('application/json; charset=utf-8')
      .send(errorBody('VALIDATION_ERROR', 'The requested range is not satisfiable', request.id));
  }
  const range = answer.kind === 'partial' ? answer.range : undefined;
  const body = await ctx.storage.get(row.storageKey, range);
  if (!body) {
    // A record without its object: the store lost it, or a delete is half done.
    ctx.logger.error({ key: row.storageKey, id: row.id }, 'attachment object missing');
    throw new AppError('NOT_FOUND', 'File not found');
  }
  reply.type(row.mimeType);
  if (range) {
    reply
      .status(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${row.fileSize}`)
      .header('content-length', range.end - range.start + 1);
  } else {
    reply.header('content-length', row.fileSize);
  }
  return reply.send(body);
}

/** Spec 4.7 with ARCHITECTURE 5.9. */
export async function registerAttachmentRoutes(server: FastifyInstance, ctx: AttachmentContext): Promise<void> {
  await server.register(async (scope) => {
    await scope.register(multipart, multipartOptions(ctx));
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      `${BASE}/upload`,
      {
        onRequest: refuseLargeBody(ctx),
        schema: {
          tags,
          summary: 'Uploads a file to a document (multipart/form-data: file, workspaceId, documentId); EDITOR or above',
          consumes: ['multipart/form-data'],
          response: { 201: oneAttachment, ...errorResponses(400, 401, 403, 404, 'DOCUMENT_ARCHIVED', 413, 415) },
        },
      },
      async (request, reply) => {
        const row = await upload(ctx, { kind: 'user', actor: requireActor(request) }, formReader(request));
        return reply.status(201).send(success(presentAttachment(row)));
      },
    );

    app.get(
      `${BASE}/document/:documentId`,
      {
        schema: {
          tags,
          summary: 'The attachments of a document, oldest first; VIEWER or above',
          params: idParams('documentId'),
          response: { 200: attachmentList, ...errors },
        },
      },
      async (request) => {
        const rows = await listForDocument(ctx, requireActor(request), request.params.documentId);
        return success(rows.map(presentAttachment));
      },
    );

    app.delete(
      `${BASE}/:id`,
      {
        schema: {
          tags,
          summary: 'Deletes an attachment and its file; EDITOR or above',
          params: idParams('id'),
          response: { 200: voidEnvelope, ...errors },
        },
      },
      async (request) => {
        await remove(ctx, requireActor(request), request.params.id);
        return SUCCESS_VOID;
      },
    );

    app.get(
      `${BASE}/file`,
      {
        schema: {
          tags,
          security: [{ bearer: [] }, {}],
          summary:
            'The file of a storage key: to members of its workspace, or to anyone while its document is published. Range requests, ETag',
          querystring: fileQuery,
          response: {
            200: Type.Unsafe({ description: 'The file, with its stored type' }),
            206: Type.Unsafe({ description: 'A range of the file' }),
            304: Type.Unsafe({ description: 'Not modified' }),
            ...errors,
            416: {
              ...errorResponse('VALIDATION_ERROR'),
              description: 'VALIDATION_ERROR: the requested range is not satisfiable',
            },
          },
        },
      },
      async (request, reply) => {
        const identity = request.identity;
        const userId =
          identity && (identity.kind === 'user' || identity.kind === 'mcp') ? (identity.userId ?? null) : null;
        const row = await readableFile(ctx, userId, request.query.url, request.id);
        return serveFile(ctx, row, request, reply);
      },
    );
  });
}
