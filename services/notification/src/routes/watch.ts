import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { envelope, errorResponses, idParams, object, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { chooseWatching, type WatchContext, watchState } from '../commands/watch.js';

const params = idParams('id');
const watchAnswer = envelope(
  object({ watching: Type.Boolean({ description: 'Whether the caller is told of other people’s edits' }) }, [
    'watching',
  ]),
);
// No 403: every member may read, so every member may watch; anyone else gets the 404 of a non-member.
const errors = errorResponses(400, 401, 404);
const tags = ['Watching'];
const PATH = '/api/v1/documents/:id/watch';

/** ARCHITECTURE 5.18: watching a document (DOCUMENT_UPDATED notifications of others' edits). */
export function registerWatchRoutes(server: FastifyInstance, ctx: WatchContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  const who = (request: { id: string }, userId: string, documentId: string) => ({
    userId,
    documentId,
    requestId: request.id,
  });

  app.get(
    PATH,
    {
      schema: {
        tags,
        summary: 'Whether the caller watches the document',
        params,
        response: { 200: watchAnswer, ...errors },
      },
    },
    async (request) => success(await watchState(ctx, who(request, requireActor(request).userId, request.params.id))),
  );

  app.put(
    PATH,
    {
      schema: {
        tags,
        summary: 'Watches the document (idempotent; also after an unwatch)',
        params,
        response: { 200: watchAnswer, ...errors },
      },
    },
    async (request) =>
      success(await chooseWatching(ctx, who(request, requireActor(request).userId, request.params.id), true)),
  );

  app.delete(
    PATH,
    {
      schema: {
        tags,
        summary: 'Stops watching the document (idempotent; automatic watching never undoes it)',
        params,
        response: { 200: watchAnswer, ...errors },
      },
    },
    async (request) =>
      success(await chooseWatching(ctx, who(request, requireActor(request).userId, request.params.id), false)),
  );
}
