import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  AppError,
  envelope,
  errorResponses,
  invalidField,
  notFound,
  object,
  refusal,
  success,
  Type,
  uuid,
} from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type StartJobDeps, startJob } from '../commands/start-job.js';
import { ZIP_LIMITS } from '../import/zip.js';
import { IMPORT_EXTENSIONS, type ImportParams, importTypeError, uploadKeyOf } from '../import-job/params.js';

export interface ImportRouteDeps extends StartJobDeps {
  membership: MembershipAccess;
  peers: ServiceClient;
  storage: ObjectStorage;
  maxBytes: number;
}

/** Room for the form's other fields and boundaries around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Upload {
  workspaceId?: string;
  parentId?: string;
  fileName?: string;
  path?: string;
  size?: number;
}

/**
 * Reads the form, spooling the file to `dir` as it arrives (never whole in memory); refuses a bad
 * name or size. `check` runs before the file is read when the fields came first (as browsers send
 * them), so a refused caller does not upload 256 MiB first; the route runs it again at the end.
 */
async function readForm(request: FastifyRequest, dir: string, check: (form: Upload) => Promise<void>): Promise<Upload> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Expected multipart/form-data');
  const form: Upload = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || form.path) {
        part.file.resume();
        continue;
      }
      const typeError = importTypeError(part.filename);
      if (typeError) {
        part.file.resume();
        throw invalidField('file', typeError);
      }
      if (form.workspaceId) {
        try {
          await check(form);
        } catch (error) {
          part.file.resume();
          throw error;
        }
      }
      const path = join(dir, 'upload');
      await pipeline(part.file, createWriteStream(path));
      if (part.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'The file is too large');
      form.fileName = part.filename;
      form.path = path;
      form.size = (await stat(path)).size;
    } else if (part.fieldname === 'workspaceId' || part.fieldname === 'parentId') {
      const value = String(part.value);
      if (!UUID.test(value)) throw invalidField(part.fieldname, 'must be a UUID');
      form[part.fieldname] = value.toLowerCase();
    }
  }
  return form;
}

async function checkParent(deps: ImportRouteDeps, parentId: string, workspaceId: string, requestId: string) {
  const parent = await deps.peers.get('document', `/internal/documents/${encodeURIComponent(parentId)}`, {
    requestId,
    parse: (data) => data as { workspaceId?: unknown; isArchived?: unknown } | null,
  });
  if (!parent || parent.workspaceId !== workspaceId) throw notFound('Parent document');
  if (parent.isArchived === true) throw refusal('DOCUMENT_ARCHIVED', 'The parent document is archived');
}

/**
 * POST /documents/import (ARCHITECTURE 5.19): the upload goes to a temporary file as it arrives,
 * then into the object store; a job of kind `import` turns it into documents. EDITOR and above.
 */
export async function registerImportRoutes(server: FastifyInstance, deps: ImportRouteDeps): Promise<void> {
  const sizeMessage = `The file is too large (at most ${deps.maxBytes} bytes)`;
  const terms = {
    maxBytes: deps.maxBytes,
    extensions: [...IMPORT_EXTENSIONS],
    maxZipEntries: ZIP_LIMITS.maxEntries,
    maxUncompressedBytes: ZIP_LIMITS.maxTotalBytes,
  };
  // What this server takes, so that the app can say it before anything is uploaded.
  server.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/documents/import',
    {
      schema: {
        tags: ['Documents', 'Jobs'],
        summary: 'What an import takes here: the largest upload, the file names, the bounds of a zip',
        response: {
          200: envelope(
            object({
              maxBytes: Type.Integer(),
              extensions: Type.Array(Type.String()),
              maxZipEntries: Type.Integer(),
              maxUncompressedBytes: Type.Integer(),
            }),
          ),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      requireActor(request);
      return success(terms);
    },
  );
  await server.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: deps.maxBytes, files: 1, fields: 4, fieldSize: 100, parts: 8, headerPairs: 50 },
    });
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/v1/documents/import',
      {
        onRequest: async (request) => {
          const length = Number(request.headers['content-length']);
          if (Number.isFinite(length) && length > deps.maxBytes + FORM_OVERHEAD_BYTES) {
            throw new AppError('PAYLOAD_TOO_LARGE', sizeMessage);
          }
        },
        schema: {
          tags: ['Documents', 'Jobs'],
          summary: `Import files as documents, as a job (multipart/form-data: file (${IMPORT_EXTENSIONS.join(' ')}), workspaceId, parentId?); EDITOR or above`,
          consumes: ['multipart/form-data'],
          response: {
            202: envelope(object({ jobId: uuid })),
            ...errorResponses(400, 401, 403, 404, 413, 415, 'DOCUMENT_ARCHIVED', 'EXPORTS_BUSY'),
          },
        },
      },
      async (request, reply) => {
        const actor = requireActor(request);
        const dir = await mkdtemp(join(tmpdir(), 'wiki-import-'));
        try {
          const check = async (form: Upload) => {
            const workspaceId = form.workspaceId as string;
            await deps.membership.requireRole(workspaceId, actor.userId, 'EDITOR', 'Workspace', request.id);
            if (form.parentId) await checkParent(deps, form.parentId, workspaceId, request.id);
          };
          const form = await readForm(request, dir, check).catch((error) => {
            throw error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE'
              ? new AppError('PAYLOAD_TOO_LARGE', sizeMessage)
              : error;
          });
          if (!form.workspaceId) throw invalidField('workspaceId', 'is required');
          if (!form.path || form.fileName === undefined) throw invalidField('file', 'is required');
          const { workspaceId } = form;
          await check(form);
          const uploadKey = uploadKeyOf(randomUUID());
          await deps.storage.putFile(uploadKey, form.path, form.size ?? 0, 'application/octet-stream');
          const params: ImportParams = { uploadKey, fileName: form.fileName, parentId: form.parentId ?? null };
          try {
            const jobId = await startJob(
              deps,
              { kind: 'import', ownerId: actor.userId, workspaceId, params: { ...params } },
              reply,
              request.id,
            );
            return reply.code(202).send(success({ jobId }));
          } catch (error) {
            await deps.storage.delete(uploadKey);
            throw error;
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
  });
}
