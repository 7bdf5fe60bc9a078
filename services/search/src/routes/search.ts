import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  errorResponses,
  invalidField,
  listOf,
  nullable,
  object,
  stringEnum,
  success,
  Type,
  timestamp,
  uuid,
  withDefault,
} from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { FastifyInstance } from 'fastify';
import { SEARCH_FIELDS, SEARCH_MAX_OFFSET, type SearchEngine, type SearchField } from '../engines/engine.js';

/** Longer queries are refused: no one types this much, and each word costs the index a look-up. */
export const QUERY_MAX_LENGTH = 1000;

/** `in`: a comma-separated list of fields, each at most once (ARCHITECTURE 5.20). */
const IN_PATTERN = `^(${SEARCH_FIELDS.join('|')})(,(${SEARCH_FIELDS.join('|')})){0,${SEARCH_FIELDS.length - 1}}$`;

const searchQuery = object(
  {
    workspaceId: uuid,
    query: Type.String({ maxLength: QUERY_MAX_LENGTH }),
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 50 }), 20),
    offset: withDefault(
      Type.Integer({ minimum: 0, maximum: SEARCH_MAX_OFFSET, description: 'Matches skipped before the page' }),
      0,
    ),
    parentId: { ...uuid, description: 'Only documents below this one, at any depth' },
    authorId: { ...uuid, description: "Only documents this user created (the document's creator)" },
    updatedAfter: { ...timestamp, description: 'Only documents last updated after this time (exclusive)' },
    updatedBefore: { ...timestamp, description: 'Only documents last updated before this time (exclusive)' },
    in: Type.String({
      pattern: IN_PATTERN,
      description: `Where a word may match, comma-separated: ${SEARCH_FIELDS.join(', ')} (default all)`,
    }),
  },
  ['workspaceId', 'query'],
);

/** SearchResultResponse (spec 4.4), with where it matched (ARCHITECTURE 5.20). */
const searchResult = object(
  {
    id: uuid,
    title: Type.String(),
    icon: nullable(Type.String()),
    parentId: nullable(uuid),
    snippet: Type.String({ description: 'HTML-escaped text with the matched terms wrapped in <mark> tags' }),
    matchField: stringEnum(['title', 'content', 'comment', 'attachment'] as const),
    commentThreadId: { ...uuid, description: 'With matchField "comment": the thread whose comment matched' },
    attachmentId: { ...uuid, description: 'With matchField "attachment": the attachment whose text matched' },
  },
  ['id', 'title', 'icon', 'parentId', 'snippet', 'matchField'],
);

const searchAnswer = Object.assign(listOf(searchResult), {
  headers: { 'x-total-count': { type: 'integer', description: 'Every matching document, before offset and limit' } },
});

export interface SearchRouteDeps {
  engine: SearchEngine;
  access: MembershipAccess;
}

/** The fields of `in`, each once; a repeated one is a bad value (the pattern lets it through). */
function fieldsOf(value: string | undefined): SearchField[] | undefined {
  if (value === undefined) return undefined;
  const fields = value.split(',') as SearchField[];
  if (new Set(fields).size !== fields.length) throw invalidField('in', 'names a field twice');
  return fields;
}

export function registerSearchRoutes(server: FastifyInstance, { engine, access }: SearchRouteDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/documents/search',
    {
      schema: {
        tags: ['Search'],
        summary:
          'Full-text search of the documents of a workspace the caller belongs to (titles, text, comments, attachments), best first, never archived ones',
        querystring: searchQuery,
        response: {
          200: searchAnswer,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { workspaceId, query, limit, offset, parentId, authorId, updatedAfter, updatedBefore } = request.query;
      const fields = fieldsOf(request.query.in);
      const after = updatedAfter === undefined ? undefined : Date.parse(updatedAfter);
      const before = updatedBefore === undefined ? undefined : Date.parse(updatedBefore);
      if (after !== undefined && before !== undefined && after >= before)
        throw invalidField('updatedBefore', 'must be later than updatedAfter');
      // Any member may search; a non-member learns nothing, not even that the workspace exists.
      await access.requireRole(workspaceId, actor.userId, 'VIEWER', 'Workspace', actor.requestId);
      const page = await engine.search({
        workspaceId,
        query,
        limit,
        offset,
        parentId,
        authorId,
        updatedAfter: after,
        updatedBefore: before,
        in: fields,
      });
      reply.header('x-total-count', page.total);
      return success(page.hits);
    },
  );
}
