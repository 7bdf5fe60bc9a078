import type { Readable } from 'node:stream';
import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { errorResponses, idParams, notFound, object, refusal, serviceUnavailable, stringEnum, Type } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import { contentDisposition } from '../domain/filename.js';
import type { ExportClient } from '../queue/client.js';
import { FORMAT_INFO, FORMATS } from '../queue/jobs.js';
import type { UserSlot, UserSlots } from '../queue/user-slots.js';

export interface ExportRouteDeps {
  client: ExportClient;
  membership: MembershipAccess;
  peers: ServiceClient;
  storage: ObjectStorage;
  slots: UserSlots;
  logger: FastifyBaseLogger;
}

/** What a client over its share of exports is told to wait: an export takes seconds. */
export const RETRY_AFTER_S = 5;

interface DocumentState {
  workspaceId: string;
}

function parseState(data: unknown): DocumentState {
  const d = data as { workspaceId?: unknown } | null;
  if (typeof d?.workspaceId !== 'string') throw new Error('the document answer lacks workspaceId');
  return { workspaceId: d.workspaceId };
}

const file = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The exported file' });

async function takeSlot(slots: UserSlots, userId: string, reply: FastifyReply): Promise<UserSlot> {
  let slot: UserSlot | null;
  try {
    slot = await slots.take(userId);
  } catch {
    throw serviceUnavailable('The export queue is unavailable; try again later');
  }
  if (!slot) {
    reply.header('retry-after', RETRY_AFTER_S);
    throw refusal('EXPORTS_BUSY', 'Too many exports running at once; try again when one has finished');
  }
  return slot;
}

/** Spec 4.4: GET /documents/{id}/export?format=pdf|docx|markdown (ARCHITECTURE 5.10). */
export function registerExportRoutes(server: FastifyInstance, deps: ExportRouteDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/documents/:id/export',
    {
      schema: {
        tags: ['Documents'],
        summary: 'The document as a PDF, Word or Markdown file',
        params: idParams('id'),
        querystring: object({ format: stringEnum(FORMATS) }, ['format']),
        response: {
          200: file,
          ...errorResponses(400, 401, 403, 404, 'EXPORTS_BUSY'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id } = request.params;
      const { format } = request.query;
      const state = await deps.peers.get('document', `/internal/documents/${encodeURIComponent(id)}`, {
        requestId: request.id,
        parse: parseState,
      });
      if (!state) throw notFound('Document');
      await deps.membership.requireRole(state.workspaceId, actor.userId, 'VIEWER', 'Document', request.id);

      const slot = await takeSlot(deps.slots, actor.userId, reply);
      // The file is sent once: when the answer is over (sent, failed, or the client went away),
      // the slot is given back and the file deleted.
      let key: string | undefined;
      let over = false;
      const removeFile = (stored: string) =>
        deps.storage
          .delete(stored)
          .catch((err) => deps.logger.warn({ err, key: stored }, 'an export file was not deleted; the sweep will'));
      reply.raw.once('close', () => {
        over = true;
        slot.release().catch((err) => deps.logger.warn({ err }, 'an export slot was not given back; it lapses'));
        if (key) void removeFile(key);
      });

      const done = await deps.client.run({ documentId: id, format, requestId: request.id });
      key = done.key;
      if (over) {
        // Nobody is waiting for it any more.
        await removeFile(done.key);
        return reply.hijack();
      }
      const body = await deps.storage.get(done.key);
      if (!body) throw serviceUnavailable('The exported file was lost before it could be sent');
      const info = FORMAT_INFO[format];
      // Streamed from storage as the client reads it, never whole in this process.
      return reply
        .header('content-type', info.contentType)
        .header('content-length', done.bytes)
        .header('content-disposition', contentDisposition(done.title, info.extension))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(body);
    },
  );
}
