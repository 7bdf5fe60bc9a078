import { requireKind } from '@wiki/auth';
import { envelope, idParams, object, success } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { resolveMcpKey } from '../commands/mcp-keys.js';
import { membership } from '../commands/members.js';
import { findInternalUser, resolveUser } from '../commands/users.js';
import { presentMembership } from '../presenters/member.js';
import { presentInternalUser, presentKeyOwner } from '../presenters/user.js';
import { errors, internalUserResponse, keyOwnerResponse, membershipResponse } from './schemas.js';

/**
 * Service-to-service routes: never proxied by the gateway (not under /api/v1), and only for
 * identity tokens of kind `service`. Hidden from the public API description.
 */
export function registerInternalRoutes(app: FastifyInstance, ctx: Context): void {
  const onlyServices = requireKind('service');
  const hide = true;

  app.post<{ Body: { idpUid: string; email: string; name?: string | null; avatarUrl?: string | null } }>(
    '/internal/users/resolve',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        body: object(
          {
            idpUid: { type: 'string', minLength: 1, maxLength: 255 },
            email: { type: 'string', minLength: 3, maxLength: 320, pattern: '@' },
            name: { type: ['string', 'null'], maxLength: 1000 },
            avatarUrl: { type: ['string', 'null'], maxLength: 2048 },
          },
          ['idpUid', 'email'],
        ),
        response: { 200: envelope(internalUserResponse), ...errors(400, 401, 403, 409) },
      },
    },
    async (request) => {
      return success(presentInternalUser(await resolveUser(ctx, request.body)));
    },
  );

  app.get<{ Params: { idOrIdpUid: string } }>(
    '/internal/users/:idOrIdpUid',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        params: object({ idOrIdpUid: { type: 'string', minLength: 1, maxLength: 255 } }, ['idOrIdpUid']),
        response: { 200: envelope(internalUserResponse), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentInternalUser(await findInternalUser(ctx, request.params.idOrIdpUid)));
    },
  );

  app.get<{ Params: { workspaceId: string; userId: string } }>(
    '/internal/workspaces/:workspaceId/members/:userId',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        params: idParams('workspaceId', 'userId'),
        response: { 200: envelope(membershipResponse), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentMembership(await membership(ctx, request.params.workspaceId, request.params.userId)));
    },
  );

  app.post<{ Body: { key: string } }>(
    '/internal/mcp-keys/resolve',
    {
      preHandler: onlyServices,
      schema: {
        hide,
        body: object({ key: { type: 'string', minLength: 1, maxLength: 512 } }, ['key']),
        response: { 200: envelope(keyOwnerResponse), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      return success(presentKeyOwner(await resolveMcpKey(ctx, request.body.key)));
    },
  );
}
