import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireKind } from '@wiki/auth';
import { errorResponses, listOf, object, success, Type, timestamp, uuid, withDefault } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import type { CommentContext } from '../commands/context.js';
import { commentPage } from '../db/comment-texts.js';
import { searchableText } from '../domain/mentions.js';

const textsQuery = object({
  workspaceId: uuid,
  after: uuid,
  limit: withDefault(Type.Integer({ minimum: 1, maximum: 500 }), 200),
});

const commentText = object(
  {
    commentId: uuid,
    threadId: uuid,
    documentId: uuid,
    workspaceId: uuid,
    text: Type.String(),
    updatedAt: timestamp,
  },
  ['commentId', 'threadId', 'documentId', 'workspaceId', 'text', 'updatedAt'],
);

/** For other services, by a `service` identity; not routed by the gateway. */
export function registerInternalRoutes(server: FastifyInstance, ctx: CommentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  // Every comment's text (or one workspace's) in id order, a page at a time, for the search
  // service's reindex (the events carry the text from then on): the same text as comment.added
  // and comment.edited. `after` resumes after the last comment id a caller kept.
  app.get(
    '/internal/comments/texts',
    {
      onRequest: requireKind('service'),
      schema: {
        hide: true,
        querystring: textsQuery,
        response: { 200: listOf(commentText), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const rows = await commentPage(ctx.pool, request.query);
      return success(rows.map(({ content, ...row }) => ({ ...row, text: searchableText(content) })));
    },
  );
}
