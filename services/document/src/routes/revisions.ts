import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { envelope, errorResponses, idParams, pageOf, pageQuery, presentPage, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { restoreRevision } from '../commands/restore-revision.js';
import { diffRevision } from '../commands/revision-diff.js';
import { listRevisions, nameRevision, readRevision, removeRevision } from '../commands/revisions.js';
import type { DocumentContext } from '../context.js';
import { presentRevision, presentRevisionSummaries } from '../presenters/revisions.js';
import {
  diffQuery,
  diffResponse,
  nameBody,
  revisionParams,
  revisionResponse,
  revisionSummary,
} from './revision-schemas.js';
import { answerDocument, taggedDocument } from './revisions-http.js';

const tags = ['Document history'];
const BASE = '/api/v1/documents/:id/revisions';
/** 204: no body. */
const noContent = Type.Unsafe<undefined>({ type: 'null', description: 'No Content' });

/** ARCHITECTURE 5.16: a document's history (list, read, name, restore, delete). */
export function registerRevisionRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'The document’s revisions, newest first, a page at a time (VIEWER and up)',
        params: idParams('id'),
        querystring: pageQuery,
        response: { 200: pageOf(revisionSummary), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reader = requireActor(request);
      const { page, size } = request.query;
      const { rows, total } = await listRevisions(ctx, reader, request.params.id, page, size);
      return success(presentPage(await presentRevisionSummaries(ctx.users, rows, reader.requestId), total, page, size));
    },
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: 'Keep the current state as a named revision, never pruned (EDITOR and up)',
        params: idParams('id'),
        body: nameBody,
        response: { 201: envelope(revisionSummary), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const named = await nameRevision(ctx, actor, request.params.id, request.body.name);
      const [summary] = await presentRevisionSummaries(ctx.users, [named], actor.requestId);
      return reply.status(201).send(success(summary));
    },
  );

  app.get(
    `${BASE}/:revisionId`,
    {
      schema: {
        tags,
        summary: 'A revision with the state it holds (VIEWER and up)',
        params: revisionParams,
        response: { 200: envelope(revisionResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reader = requireActor(request);
      const { id, revisionId } = request.params;
      return success(
        await presentRevision(ctx.users, await readRevision(ctx, reader, id, revisionId), reader.requestId),
      );
    },
  );

  app.get(
    `${BASE}/:revisionId/diff`,
    {
      schema: {
        tags,
        summary: 'The blocks that differ from this revision to another one or to the current state (VIEWER and up)',
        params: revisionParams,
        querystring: diffQuery,
        response: { 200: envelope(diffResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reader = requireActor(request);
      const { id, revisionId } = request.params;
      return success(await diffRevision(ctx, reader, id, revisionId, request.query.against));
    },
  );

  app.post(
    `${BASE}/:revisionId/restore`,
    {
      schema: {
        tags,
        summary: 'Make the revision’s title, content, icon and cover the document’s (EDITOR and up)',
        params: revisionParams,
        response: { 200: taggedDocument, ...errorResponses(400, 401, 403, 404, 413, 'DOCUMENT_ARCHIVED') },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id, revisionId } = request.params;
      return answerDocument(reply, await restoreRevision(ctx, actor, id, revisionId), ctx.users, actor.requestId);
    },
  );

  app.delete(
    `${BASE}/:revisionId`,
    {
      schema: {
        tags,
        summary: 'Delete a revision (ADMIN and up); the one holding the current state stays',
        params: revisionParams,
        response: { 204: noContent, ...errorResponses(400, 401, 403, 404, 'REVISION_CURRENT') },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id, revisionId } = request.params;
      await removeRevision(ctx, actor, id, revisionId);
      return reply.status(204).send();
    },
  );
}
