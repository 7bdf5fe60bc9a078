import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { envelope, errorResponses, idParams, listOf, SUCCESS_VOID, success, voidEnvelope } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { CommentContext } from '../commands/context.js';
import { createThread, deleteThread, listThreads, transitionThread } from '../commands/threads.js';
import { createThreadBody, statusQuery, threadResponse } from './schemas.js';

const tags = ['Comments'];
const errors = errorResponses(400, 401, 403, 404);

export function registerThreadRoutes(server: FastifyInstance, ctx: CommentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/comments/documents/:documentId/threads',
    {
      schema: {
        tags,
        summary: "A document's comment threads, oldest first (status: all, open or resolved)",
        params: idParams('documentId'),
        querystring: statusQuery,
        response: { 200: listOf(threadResponse), ...errors },
      },
    },
    async (request) =>
      success(await listThreads(ctx, requireActor(request), request.params.documentId, request.query.status)),
  );

  app.post(
    '/api/v1/comments/documents/:documentId/threads',
    {
      schema: {
        tags,
        summary: 'Start a thread anchored to a block, with its first comment (COMMENTER+)',
        params: idParams('documentId'),
        body: createThreadBody,
        response: { 201: envelope(threadResponse), ...errors },
      },
    },
    async (request, reply) => {
      const thread = await createThread(ctx, requireActor(request), request.params.documentId, request.body);
      return reply.status(201).send(success(thread));
    },
  );

  app.put(
    '/api/v1/comments/threads/:threadId/resolve',
    {
      schema: {
        tags,
        summary: 'Resolve an open thread (COMMENTER+)',
        params: idParams('threadId'),
        response: { 200: envelope(threadResponse), ...errorResponses(400, 401, 403, 404, 'THREAD_ALREADY_RESOLVED') },
      },
    },
    async (request) => success(await transitionThread(ctx, requireActor(request), request.params.threadId, 'resolve')),
  );

  app.put(
    '/api/v1/comments/threads/:threadId/reopen',
    {
      schema: {
        tags,
        summary: 'Reopen a resolved thread (COMMENTER+)',
        params: idParams('threadId'),
        response: { 200: envelope(threadResponse), ...errorResponses(400, 401, 403, 404, 'THREAD_ALREADY_OPEN') },
      },
    },
    async (request) => success(await transitionThread(ctx, requireActor(request), request.params.threadId, 'reopen')),
  );

  app.delete(
    '/api/v1/comments/threads/:threadId',
    {
      schema: {
        tags,
        summary: 'Delete a thread and its comments (its creator or ADMIN+)',
        params: idParams('threadId'),
        response: { 200: voidEnvelope, ...errors },
      },
    },
    async (request) => {
      await deleteThread(ctx, requireActor(request), request.params.threadId);
      return SUCCESS_VOID;
    },
  );
}
