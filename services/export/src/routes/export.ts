import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type MembershipAccess, requireActor, type ServiceClient } from '@wiki/auth';
import { errorEnvelope, idParams, notFound, object, stringEnum, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { contentDisposition } from '../domain/filename.js';
import type { ExportClient } from '../queue/client.js';
import { FORMAT_INFO, FORMATS } from '../queue/jobs.js';

export interface ExportRouteDeps {
  client: ExportClient;
  membership: MembershipAccess;
  peers: ServiceClient;
}

interface DocumentState {
  workspaceId: string;
}

function parseState(data: unknown): DocumentState {
  const d = data as { workspaceId?: unknown } | null;
  if (typeof d?.workspaceId !== 'string') throw new Error('the document answer lacks workspaceId');
  return { workspaceId: d.workspaceId };
}

const file = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The exported file' });

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
          400: errorEnvelope,
          401: errorEnvelope,
          403: errorEnvelope,
          404: errorEnvelope,
          503: errorEnvelope,
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
      const { file: bytes, title } = await deps.client.run({ documentId: id, format, requestId: request.id });
      const info = FORMAT_INFO[format];
      return reply
        .header('content-type', info.contentType)
        .header('content-disposition', contentDisposition(title, info.extension))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  );
}
