import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireUser } from '@wiki/auth';
import { envelope, errorResponses, idParams, listOf, object, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import {
  acceptInvitation,
  cancelInvitation,
  declineInvitation,
  invitationInfo,
  listWorkspaceInvitations,
  myInvitations,
  resendInvitation,
} from '../commands/invitations.js';
import { presentInvitation, presentInvitationResult } from '../presenters/invitation.js';
import { presentMember } from '../presenters/member.js';
import { invitationResponse, invitationResultResponse, memberResponse, noContent } from './schemas.js';

const tags = ['Invitations'];
const tokenParams = object({ token: Type.String({ minLength: 1, maxLength: 256 }) }, ['token']);

export function registerInvitationRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/workspaces/:workspaceId/invitations',
    {
      schema: {
        tags,
        summary: 'Pending invitations of the workspace (ADMIN or OWNER)',
        params: idParams('workspaceId'),
        response: { 200: listOf(invitationResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      return success(
        (await listWorkspaceInvitations(ctx, userId, request.params.workspaceId)).map((i) => presentInvitation(i)),
      );
    },
  );

  app.delete(
    '/api/v1/workspaces/:workspaceId/invitations/:invitationId',
    {
      schema: {
        tags,
        summary: 'Cancel a pending invitation (ADMIN or OWNER)',
        params: idParams('workspaceId', 'invitationId'),
        response: { 204: noContent, ...errorResponses(400, 401, 403, 404, 'INVITATION_NOT_PENDING') },
      },
    },
    async (request, reply) => {
      const { userId } = requireUser(request);
      await cancelInvitation(ctx, userId, request.params.workspaceId, request.params.invitationId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/api/v1/workspaces/:workspaceId/invitations/:invitationId/resend',
    {
      schema: {
        tags,
        summary: 'Refresh the expiry of a pending or expired invitation (same token; ADMIN or OWNER)',
        params: idParams('workspaceId', 'invitationId'),
        response: {
          200: envelope(invitationResultResponse),
          ...errorResponses(400, 401, 403, 404, 'INVITATION_NOT_PENDING', 'ALREADY_MEMBER'),
        },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const invitation = await resendInvitation(ctx, userId, request.params.workspaceId, request.params.invitationId);
      return success(presentInvitationResult(invitation, ctx.settings.inviteUrl));
    },
  );

  app.get(
    '/api/v1/users/me/invitations',
    {
      schema: {
        tags,
        summary: "The caller's pending invitations",
        response: { 200: listOf(invitationResponse), ...errorResponses(401) },
      },
    },
    async (request) => {
      return success((await myInvitations(ctx, requireUser(request))).map((i) => presentInvitation(i)));
    },
  );

  app.get(
    '/api/v1/invitations/:token/info',
    {
      schema: {
        tags,
        summary: 'Preview an invitation without signing in (404 unknown, 410 expired or used)',
        security: [],
        params: tokenParams,
        response: {
          200: envelope(invitationResponse),
          ...errorResponses(400, 404, 'INVITATION_EXPIRED', 'INVITATION_CLOSED'),
        },
      },
    },
    async (request) => {
      return success(presentInvitation(await invitationInfo(ctx, request.params.token)));
    },
  );

  app.post(
    '/api/v1/invitations/:token/accept',
    {
      schema: {
        tags,
        summary: 'Accept an invitation sent to your email; you join with the invited role',
        params: tokenParams,
        response: {
          200: envelope(memberResponse),
          ...errorResponses(
            400,
            401,
            403,
            404,
            'ALREADY_MEMBER',
            'INVITATION_EXPIRED',
            'INVITATION_CLOSED',
            'INVITATION_REVOKED',
          ),
        },
      },
    },
    async (request) => {
      return success(presentMember(await acceptInvitation(ctx, requireUser(request), request.params.token)));
    },
  );

  app.post(
    '/api/v1/invitations/:token/decline',
    {
      schema: {
        tags,
        summary: 'Decline an invitation sent to your email',
        params: tokenParams,
        response: { 204: noContent, ...errorResponses(400, 401, 403, 404, 'INVITATION_EXPIRED', 'INVITATION_CLOSED') },
      },
    },
    async (request, reply) => {
      await declineInvitation(ctx, requireUser(request), request.params.token);
      return reply.status(204).send();
    },
  );
}
