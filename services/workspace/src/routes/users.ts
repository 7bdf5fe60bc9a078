import { requireUser } from '@wiki/auth';
import { envelope, nullableUuid, object, success } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../commands/context.js';
import { getMe, updatePreferences } from '../commands/users.js';
import type { PreferencePatch } from '../db/preferences.js';
import { presentUser } from '../presenters/user.js';
import { errors, themes, userResponse } from './schemas.js';

const tags = ['Users'];

const preferencesBody = object({
  lastDocumentId: nullableUuid,
  lastWorkspaceId: nullableUuid,
  theme: { type: 'string', enum: [...themes] },
  sidebarCollapsed: { type: 'boolean' },
  locale: { type: 'string', maxLength: 10 },
  notificationsEnabled: { type: 'boolean' },
});

export function registerUserRoutes(app: FastifyInstance, ctx: Context): void {
  app.get(
    '/api/v1/users/me',
    {
      schema: {
        tags,
        summary: 'The signed-in user with their preferences',
        response: { 200: envelope(userResponse), ...errors(401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { user, preference } = await getMe(ctx, userId);
      return success(presentUser(user, preference));
    },
  );

  app.put<{ Body: PreferencePatch }>(
    '/api/v1/users/me/preferences',
    {
      schema: {
        tags,
        summary: 'Save some or all preferences; the others keep their values',
        body: preferencesBody,
        response: { 200: envelope(userResponse), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId } = requireUser(request);
      const { lastDocumentId, lastWorkspaceId, theme, sidebarCollapsed, locale, notificationsEnabled } =
        request.body ?? {};
      const { user, preference } = await updatePreferences(ctx, userId, {
        lastDocumentId,
        lastWorkspaceId,
        theme,
        sidebarCollapsed,
        locale,
        notificationsEnabled,
      });
      return success(presentUser(user, preference));
    },
  );
}
