import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { envelope, errorResponses, idParams, SUCCESS_VOID, success, voidEnvelope } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { addComment, deleteComment, editComment } from '../commands/comments.js';
import type { CommentContext } from '../commands/context.js';
import { commentResponse, contentInput } from './schemas.js';

const tags = ['Comments'];
const errors = errorResponses(400, 401, 403, 404);

export function registerCommentRoutes(server: FastifyInstance, ctx: CommentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/comments/threads/:threadId/comments',
    {
      schema: {
        tags,
        summary: 'Reply in a thread (COMMENTER+); content may @[Name](userId) mention members',
        params: idParams('threadId'),
        body: contentInput,
        response: { 201: envelope(commentResponse), ...errors },
      },
    },
    async (request, reply) => {
      const comment = await addComment(ctx, requireActor(request), request.params.threadId, request.body.content);
      return reply.status(201).send(success(comment));
    },
  );

  app.put(
    '/api/v1/comments/:commentId',
    {
      schema: {
        tags,
        summary: 'Edit a comment (its author only); sets isEdited',
        params: idParams('commentId'),
        body: contentInput,
        response: { 200: envelope(commentResponse), ...errors },
      },
    },
    async (request) =>
      success(await editComment(ctx, requireActor(request), request.params.commentId, request.body.content)),
  );

  app.delete(
    '/api/v1/comments/:commentId',
    {
      schema: {
        tags,
        summary: 'Delete a comment (its author or ADMIN+); deleting the last comment deletes the thread',
        params: idParams('commentId'),
        response: { 200: voidEnvelope, ...errors },
      },
    },
    async (request) => {
      await deleteComment(ctx, requireActor(request), request.params.commentId);
      return SUCCESS_VOID;
    },
  );
}
