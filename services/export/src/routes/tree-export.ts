import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  envelope,
  errorResponses,
  idParams,
  notFound,
  object,
  refusal,
  stringEnum,
  success,
  Type,
  uuid,
} from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';
import { type StartJobDeps, startJob } from '../commands/start-job.js';
import { TREE_FORMATS, type TreeExportParams } from '../tree/formats.js';

export interface TreeExportRouteDeps extends StartJobDeps {
  membership: MembershipAccess;
  peers: ServiceClient;
}

interface DocumentState {
  workspaceId: string;
  title: string;
  isArchived: boolean;
}

function parseState(data: unknown): DocumentState {
  const d = data as Partial<Record<keyof DocumentState, unknown>> | null;
  if (typeof d?.workspaceId !== 'string' || typeof d.title !== 'string') {
    throw new Error('the document answer lacks a field');
  }
  return { workspaceId: d.workspaceId, title: d.title, isArchived: d.isArchived === true };
}

const accepted = { 202: envelope(object({ jobId: uuid })) };
const format = stringEnum(TREE_FORMATS);

/**
 * POST /documents/{id}/export and POST /workspaces/{id}/export (ARCHITECTURE 5.19): a zip made by a
 * job, for any member (VIEWER and above: an export shows nothing a viewer cannot read). 202 with
 * the job's id; GET /jobs/{id} tells how far it is and, once done, where the zip is.
 */
export function registerTreeExportRoutes(server: FastifyInstance, deps: TreeExportRouteDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/documents/:id/export',
    {
      schema: {
        tags: ['Documents', 'Jobs'],
        summary: 'Export the document (and its descendants) as a zip, as a job',
        params: idParams('id'),
        body: object(
          {
            format,
            includeChildren: Type.Boolean({ default: true, description: 'Its descendants too (default true)' }),
          },
          ['format'],
        ),
        response: { ...accepted, ...errorResponses(400, 401, 403, 404, 'DOCUMENT_ARCHIVED', 'EXPORTS_BUSY') },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id } = request.params;
      const state = await deps.peers.get('document', `/internal/documents/${encodeURIComponent(id)}`, {
        requestId: request.id,
        parse: parseState,
      });
      if (!state) throw notFound('Document');
      await deps.membership.requireRole(state.workspaceId, actor.userId, 'VIEWER', 'Document', request.id);
      if (state.isArchived) throw refusal('DOCUMENT_ARCHIVED', 'The document is archived; restore it to export it');
      const params: TreeExportParams = {
        format: request.body.format,
        documentId: id,
        includeChildren: request.body.includeChildren ?? true,
        name: state.title || 'Untitled',
      };
      const jobId = await startJob(
        deps,
        { kind: 'export', ownerId: actor.userId, workspaceId: state.workspaceId, params: { ...params } },
        reply,
        request.id,
      );
      return reply.code(202).send(success({ jobId }));
    },
  );

  app.post(
    '/api/v1/workspaces/:id/export',
    {
      schema: {
        tags: ['Workspaces', 'Jobs'],
        summary: 'Export every document of the workspace as a zip, as a job',
        params: idParams('id'),
        body: object({ format }, ['format']),
        response: { ...accepted, ...errorResponses(400, 401, 403, 404, 'EXPORTS_BUSY') },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const workspaceId = request.params.id;
      await deps.membership.requireRole(workspaceId, actor.userId, 'VIEWER', 'Workspace', request.id);
      const params: TreeExportParams = { format: request.body.format, includeChildren: true, name: 'workspace' };
      const jobId = await startJob(
        deps,
        { kind: 'export', ownerId: actor.userId, workspaceId, params: { ...params } },
        reply,
        request.id,
      );
      return reply.code(202).send(success({ jobId }));
    },
  );
}
