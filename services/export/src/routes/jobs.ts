import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import { envelope, errorResponses, idParams, notFound, refusal, success, Type } from '@wiki/http';
import type { ObjectStorage } from '@wiki/storage';
import type { FastifyInstance } from 'fastify';
import { findJob, type JobRow } from '../db/jobs.js';
import { contentDisposition } from '../domain/filename.js';
import { jobSchema, presentJob } from '../presenters/job.js';

export interface JobRouteDeps {
  pool: DatabasePool;
  storage: ObjectStorage;
}

/** The job when the caller started it; anyone else is told it does not exist. */
async function ownJob(pool: DatabasePool, id: string, userId: string): Promise<JobRow> {
  const row = await findJob(pool, id);
  if (!row || row.ownerId !== userId) throw notFound('Job');
  return row;
}

/** GET /jobs/{id} and its file (ARCHITECTURE 5.19): the owner's only. */
export function registerJobRoutes(server: FastifyInstance, deps: JobRouteDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/jobs/:id',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'A job (import or export) with its progress and, once done, its result',
        params: idParams('id'),
        response: { 200: envelope(jobSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      return success(presentJob(await ownJob(deps.pool, request.params.id, actor.userId)));
    },
  );

  app.get(
    '/api/v1/jobs/:id/download',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'The zip a finished export job made, until it expires',
        params: idParams('id'),
        response: {
          200: Type.Unsafe({ type: 'string', format: 'binary', description: 'The zip' }),
          ...errorResponses(400, 401, 404, 'JOB_NOT_FINISHED', 'EXPORT_EXPIRED'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const row = await ownJob(deps.pool, request.params.id, actor.userId);
      if (row.status !== 'done' || typeof row.result?.downloadUrl !== 'string') {
        throw refusal('JOB_NOT_FINISHED', 'The job has no file to download');
      }
      const expired = !row.fileKey || (row.expiresAt !== null && Date.parse(row.expiresAt) <= Date.now());
      if (expired) throw refusal('EXPORT_EXPIRED', 'The export expired; export again');
      const stored = await deps.storage.stat(row.fileKey as string);
      const body = stored ? await deps.storage.get(row.fileKey as string) : null;
      if (!stored || !body) throw refusal('EXPORT_EXPIRED', 'The export expired; export again');
      const name = typeof row.result.fileName === 'string' ? row.result.fileName.replace(/\.zip$/, '') : 'export';
      return reply
        .header('content-type', 'application/zip')
        .header('content-length', stored.size)
        .header('content-disposition', contentDisposition(name, 'zip'))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(body);
    },
  );
}
