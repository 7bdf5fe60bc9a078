import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { envelope, errorResponses, idParams, nullable, object, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { pendingInvitationLink } from '../commands/invitations.js';
import { resolveMcpKey } from '../commands/mcp-keys.js';
import { membership } from '../commands/members.js';
import { findInternalUser, resolveUser } from '../commands/users.js';
import { presentInvitationLink } from '../presenters/invitation.js';
import { presentMembership } from '../presenters/member.js';
import { presentInternalUser, presentKeyOwner } from '../presenters/user.js';
import { internalUserResponse, invitationLinkResponse, keyOwnerResponse, membershipResponse } from './schemas.js';

/**
 * Service-to-service routes: never proxied by the gateway (not under /api/v1), and only for
 * identity tokens of kind `service`. Hidden from the public API description.
 */
export function registerInternalRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  const onlyServices = requireKind('service');
  const hide = true;

  app.post(
    '/internal/users/resolve',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        body: object(
          {
            idpUid: Type.String({ minLength: 1, maxLength: 255 }),
            email: Type.String({ minLength: 3, maxLength: 320, pattern: '@' }),
            // Absent counts as unverified: only a caller that checked the provider's claim says true.
            emailVerified: Type.Boolean(),
            name: nullable(Type.String({ maxLength: 1000 })),
            avatarUrl: nullable(Type.String({ maxLength: 2048 })),
          },
          ['idpUid', 'email'],
        ),
        response: {
          200: envelope(internalUserResponse),
          ...errorResponses(400, 401, 403, 409, 'EMAIL_TAKEN', 'EMAIL_UNVERIFIED', 'USER_CHANGED'),
        },
      },
    },
    async (request) => {
      return success(presentInternalUser(await resolveUser(ctx, request.body)));
    },
  );

  app.get(
    '/internal/users/:idOrIdpUid',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        params: object({ idOrIdpUid: Type.String({ minLength: 1, maxLength: 255 }) }, ['idOrIdpUid']),
        response: { 200: envelope(internalUserResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentInternalUser(await findInternalUser(ctx, request.params.idOrIdpUid)));
    },
  );

  app.get(
    '/internal/workspaces/:workspaceId/members/:userId',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        params: idParams('workspaceId', 'userId'),
        response: { 200: envelope(membershipResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentMembership(await membership(ctx, request.params.workspaceId, request.params.userId)));
    },
  );

  app.get(
    '/internal/invitations/:invitationId/link',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        params: idParams('invitationId'),
        response: { 200: envelope(invitationLinkResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentInvitationLink(await pendingInvitationLink(ctx, request.params.invitationId)));
    },
  );

  app.post(
    '/internal/mcp-keys/resolve',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        body: object({ key: Type.String({ minLength: 1, maxLength: 512 }) }, ['key']),
        response: { 200: envelope(keyOwnerResponse), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentKeyOwner(await resolveMcpKey(ctx, request.body.key)));
    },
  );
}
