import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireUser } from '@wiki/auth';
import { envelope, errorResponses, nullableUuid, object, stringEnum, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { getMe, updatePreferences } from '../commands/users.js';
import { presentUser } from '../presenters/user.js';
import { emailNotificationsPatch, themes, userResponse } from './schemas.js';

const tags = ['Users'];

const preferencesBody = object({
  lastDocumentId: nullableUuid,
  lastWorkspaceId: nullableUuid,
  theme: stringEnum(themes),
  sidebarCollapsed: Type.Boolean(),
  locale: Type.String({ maxLength: 10 }),
  notificationsEnabled: Type.Boolean(),
  emailNotifications: emailNotificationsPatch,
});

export function registerUserRoutes(server: FastifyInstance, ctx: Context): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/users/me',
    {
      schema: {
        tags,
        summary: 'The signed-in user with their preferences',
        response: { 200: envelope(userResponse), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { user, preference } = await getMe(ctx, userId);
      return success(presentUser(user, preference));
    },
  );

  app.put(
    '/api/v1/users/me/preferences',
    {
      schema: {
        tags,
        summary: 'Save some or all preferences; the others keep their values',
        body: preferencesBody,
        response: { 200: envelope(userResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      // The body's fields are the patch (the schema lets no other field through).
      const { user, preference } = await updatePreferences(ctx, userId, request.body ?? {});
      return success(presentUser(user, preference));
    },
  );
}
