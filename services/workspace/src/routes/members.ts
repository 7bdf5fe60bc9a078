import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireUser } from '@wiki/auth';
import { envelope, errorResponses, idParams, listOf, nullable, object, success, Type, withDefault } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { invite } from '../commands/invitations.js';
import { changeRole, leaveWorkspace, listMembers, removeMember, searchMembers } from '../commands/members.js';
import { presentInvitationResult } from '../presenters/invitation.js';
import { presentMember, presentMemberSearch } from '../presenters/member.js';
import { invitationResultResponse, memberResponse, memberSearchResponse, noContent, role } from './schemas.js';

const tags = ['Members'];
const base = '/api/v1/workspaces/:workspaceId/members';

export function registerMemberRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'Members of the workspace',
        params: idParams('workspaceId'),
        response: { 200: listOf(memberResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success((await listMembers(ctx, userId, request.params.workspaceId)).map(presentMember));
    },
  );

  app.get(
    `${base}/search`,
    {
      schema: {
        tags,
        summary: 'Members whose name or email contains q (case-insensitive, at most 20)',
        params: idParams('workspaceId'),
        querystring: object({ q: withDefault(Type.String({ maxLength: 255 }), '') }),
        response: { 200: listOf(memberSearchResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success(
        (await searchMembers(ctx, userId, request.params.workspaceId, request.query.q)).map(presentMemberSearch),
      );
    },
  );

  app.post(
    `${base}/invite`,
    {
      schema: {
        tags,
        summary: 'Invite someone by email (ADMIN or OWNER); inviting an open invitation again refreshes it',
        params: idParams('workspaceId'),
        body: object(
          {
            email: Type.String({ format: 'email', maxLength: 255 }),
            role,
            message: nullable(Type.String({ maxLength: 500 })),
          },
          ['email', 'role'],
        ),
        response: { 201: envelope(invitationResultResponse), ...errorResponses(400, 401, 403, 404, 'ALREADY_MEMBER') },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      const { email, role: invitedRole, message } = request.body;
      const invitation = await invite(ctx, userId, request.params.workspaceId, { email, role: invitedRole, message });
      return reply.status(201).send(success(presentInvitationResult(invitation, ctx.settings.inviteUrl)));
    },
  );

  app.put(
    `${base}/:memberId/role`,
    {
      schema: {
        tags,
        summary: "Change a member's role (ADMIN or OWNER); OWNER is only given by transfer (400)",
        params: idParams('workspaceId', 'memberId'),
        body: object({ role }, ['role']),
        response: { 200: envelope(memberResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { workspaceId, memberId } = request.params;
      return success(presentMember(await changeRole(ctx, userId, workspaceId, memberId, request.body.role)));
    },
  );

  app.delete(
    `${base}/:memberId`,
    {
      schema: {
        tags,
        summary: 'Remove a member (ADMIN or OWNER; not one above you, never the owner)',
        params: idParams('workspaceId', 'memberId'),
        response: { 204: noContent, ...errorResponses(400, 401, 403, 404, 'OWNER_MUST_TRANSFER') },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      await removeMember(ctx, userId, request.params.workspaceId, request.params.memberId);
      return reply.status(204).send();
    },
  );

  app.post(
    `${base}/leave`,
    {
      schema: {
        tags,
        summary: 'Leave the workspace (the OWNER gets 409 and must transfer ownership first)',
        params: idParams('workspaceId'),
        response: { 204: noContent, ...errorResponses(400, 401, 404, 'OWNER_MUST_TRANSFER') },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      await leaveWorkspace(ctx, userId, request.params.workspaceId);
      return reply.status(204).send();
    },
  );
}
