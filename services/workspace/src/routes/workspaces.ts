import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireUser } from '@wiki/auth';
import {
  envelope,
  errorResponses,
  idParams,
  listOf,
  notBlank,
  nullable,
  object,
  SUCCESS_VOID,
  success,
  Type,
  uuid,
  voidEnvelope,
} from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import {
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listWorkspaces,
  transferOwnership,
  updateWorkspace,
} from '../commands/workspaces.js';
import { presentWorkspace } from '../presenters/workspace.js';
import { nullableHexColor, workspaceResponse } from './schemas.js';

const tags = ['Workspaces'];

const createBody = object(
  {
    name: notBlank(255),
    description: nullable(Type.String({ maxLength: 1000 })),
    icon: nullable(Type.String({ maxLength: 50 })),
    color: nullableHexColor,
  },
  ['name'],
);

const updateBody = object({
  name: notBlank(255),
  description: nullable(Type.String({ maxLength: 1000 })),
  icon: nullable(Type.String({ maxLength: 50 })),
  color: nullableHexColor,
  isArchived: Type.Boolean(),
});

export function registerWorkspaceRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'Workspaces the caller belongs to',
        response: { 200: listOf(workspaceResponse), ...errorResponses(401) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success((await listWorkspaces(ctx, userId)).map(presentWorkspace));
    },
  );

  app.get(
    '/api/v1/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'One workspace',
        params: idParams('id'),
        response: { 200: envelope(workspaceResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success(presentWorkspace(await getWorkspace(ctx, userId, request.params.id)));
    },
  );

  app.post(
    '/api/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'Create a workspace; the caller becomes its owner',
        body: createBody,
        response: { 201: envelope(workspaceResponse), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      const { name, description, icon, color } = request.body;
      const workspace = await createWorkspace(ctx, userId, { name, description, icon, color });
      return reply.status(201).send(success(presentWorkspace(workspace)));
    },
  );

  app.put(
    '/api/v1/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Update a workspace (ADMIN or OWNER)',
        params: idParams('id'),
        body: updateBody,
        response: { 200: envelope(workspaceResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { name, description, icon, color, isArchived } = request.body ?? {};
      return success(
        presentWorkspace(
          await updateWorkspace(ctx, userId, request.params.id, { name, description, icon, color, isArchived }),
        ),
      );
    },
  );

  app.delete(
    '/api/v1/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Delete a workspace and all its data (OWNER only; irreversible)',
        params: idParams('id'),
        response: { 200: voidEnvelope, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      await deleteWorkspace(ctx, userId, request.params.id);
      return SUCCESS_VOID;
    },
  );

  app.post(
    '/api/v1/workspaces/:id/transfer-ownership',
    {
      schema: {
        tags,
        summary: 'Make another member the owner (OWNER only); the old owner becomes ADMIN',
        params: idParams('id'),
        body: object({ userId: uuid }, ['userId']),
        response: { 200: envelope(workspaceResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success(presentWorkspace(await transferOwnership(ctx, userId, request.params.id, request.body.userId)));
    },
  );
}
