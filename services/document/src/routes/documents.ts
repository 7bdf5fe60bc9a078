import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  envelope,
  errorResponses,
  idParams,
  listOf,
  object,
  openObject,
  SUCCESS_VOID,
  stringEnum,
  success,
  Type,
  uuid,
  voidEnvelope,
} from '@wiki/http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { appendToDocument } from '../commands/append-to-document.js';
import { createDocument } from '../commands/create-document.js';
import { deleteDocument } from '../commands/delete-document.js';
import { moveDocument } from '../commands/move-document.js';
import { setPublication } from '../commands/publish-document.js';
import { updateDocument } from '../commands/update-document.js';
import type { DocumentContext } from '../context.js';
import { presentDocument } from '../presenters/documents.js';
import {
  breadcrumbsOf,
  childrenOf,
  getDocument,
  listDocuments,
  permissionFor,
  treeBody,
} from '../queries/read-documents.js';
import type { Answer } from '../queries/remembered-answers.js';
import { acceptsGzip } from '../queries/tree-answers.js';
import { answerDocument, expectedRevisionOf, sourceOf, taggedDocument } from './revisions-http.js';
import {
  appendBody,
  breadcrumbResponse,
  createBody,
  documentResponse,
  listItemResponse,
  moveBody,
  permissionResponse,
  treeNodeSchema,
  treeResponse,
  updateBody,
} from './schemas.js';

const tags = ['Documents'];
const idParam = idParams('id');

/** `parentId` of the list query: a UUID, or absent / empty / "null" for the root documents. */
const parentQuery = Type.Union([uuid, stringEnum(['', 'null'])]);

/**
 * A body serialized before (the tree and the lists are remembered as JSON bytes): sent as it is,
 * gzipped when it was. The routes' response schemas still describe it (OpenAPI).
 */
function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
  if (answer.gzipped) reply.header('content-encoding', 'gzip');
  return reply.send(answer.body);
}

/** If-Match on a write (OpenAPI; parsed by expectedRevisionOf, so that a malformed one is a 400 naming it). */
const ifMatchHeader = openObject({
  'if-match': Type.String({ description: 'The revision the change is based on, as the ETag gave it ("3")' }),
});

/** Spec 4.4 (all but search and export, which other services serve). */
export function registerDocumentRoutes(server: FastifyInstance, ctx: DocumentContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(treeNodeSchema);

  app.get(
    '/api/v1/documents',
    {
      schema: {
        tags,
        summary: 'Root documents of a workspace, or the children of parentId',
        querystring: object({ workspaceId: uuid, parentId: parentQuery }, ['workspaceId']),
        response: { 200: listOf(listItemResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const reader = requireActor(request);
      const { query } = request;
      const parentId = query.parentId && query.parentId !== 'null' ? query.parentId : null;
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      return sendAnswer(reply, await listDocuments(ctx, reader, query.workspaceId, parentId, gzip));
    },
  );

  app.get(
    '/api/v1/documents/tree',
    {
      schema: {
        tags,
        summary: 'The whole document tree of a workspace (archived subtrees left out)',
        querystring: object({ workspaceId: uuid }, ['workspaceId']),
        response: { 200: treeResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const reader = requireActor(request);
      const { workspaceId } = request.query;
      const answer = await treeBody(ctx, reader, workspaceId, acceptsGzip(request.headers['accept-encoding']));
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/api/v1/documents/:id',
    {
      schema: {
        tags,
        summary: 'A document (also an archived one); ETag: its revision',
        params: idParam,
        response: { 200: taggedDocument, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const reader = requireActor(request);
      const { id } = request.params;
      const doc = await getDocument(ctx, reader, id);
      return answerDocument(reply, doc, ctx.users, reader.requestId);
    },
  );

  app.get(
    '/api/v1/documents/:id/children',
    {
      schema: {
        tags,
        summary: 'Direct children (archived ones left out)',
        params: idParam,
        response: { 200: listOf(listItemResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const reader = requireActor(request);
      const { id } = request.params;
      return sendAnswer(reply, await childrenOf(ctx, reader, id, acceptsGzip(request.headers['accept-encoding'])));
    },
  );

  app.get(
    '/api/v1/documents/:id/ancestors',
    {
      schema: {
        tags,
        summary: 'Breadcrumbs from the root down to the document itself',
        params: idParam,
        response: { 200: listOf(breadcrumbResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const reader = requireActor(request);
      const { id } = request.params;
      return sendAnswer(reply, await breadcrumbsOf(ctx, reader, id, acceptsGzip(request.headers['accept-encoding'])));
    },
  );

  app.get(
    '/api/v1/documents/:id/permission',
    {
      schema: {
        tags,
        summary:
          "The caller's role in the document's workspace and whether they may edit it (the web app's editor lock)",
        params: idParam,
        response: { 200: envelope(permissionResponse), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reader = requireActor(request);
      return success(await permissionFor(ctx, reader, request.params.id));
    },
  );

  app.post(
    '/api/v1/documents',
    {
      schema: {
        tags,
        summary: 'Create a document (last among its siblings)',
        body: createBody,
        response: { 201: envelope(documentResponse), ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const doc = await createDocument(ctx, actor, request.body);
      return reply.status(201).send(success(await presentDocument(doc, ctx.users, actor.requestId)));
    },
  );

  app.put(
    '/api/v1/documents/:id',
    {
      schema: {
        tags,
        summary:
          'Update fields; isArchived archives or restores the document with its subtree. With If-Match or lastRevision: 412 when the document moved on',
        params: idParam,
        headers: ifMatchHeader,
        body: updateBody,
        response: {
          200: taggedDocument,
          ...errorResponses(400, 401, 403, 404, 412, 413, 'DOCUMENT_ARCHIVED'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id } = request.params;
      const { lastRevision, ...input } = request.body ?? {};
      const expectedRevision = expectedRevisionOf(request, lastRevision);
      const options = { source: sourceOf(request), expectedRevision };
      const doc = (await updateDocument(ctx, actor, id, input, options)) ?? (await getDocument(ctx, actor, id));
      return answerDocument(reply, doc, ctx.users, actor.requestId);
    },
  );

  app.post(
    '/api/v1/documents/:id/append',
    {
      schema: {
        tags,
        summary:
          'Append blocks after the current content, on the server (nothing the caller has not seen is overwritten). With If-Match or lastRevision: 412 when the document moved on',
        params: idParam,
        headers: ifMatchHeader,
        body: appendBody,
        response: {
          200: taggedDocument,
          ...errorResponses(400, 401, 403, 404, 412, 413, 'DOCUMENT_ARCHIVED'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      const { id } = request.params;
      const { content, lastRevision } = request.body;
      const expectedRevision = expectedRevisionOf(request, lastRevision);
      const doc = await appendToDocument(ctx, actor, id, content, { source: sourceOf(request), expectedRevision });
      return answerDocument(reply, doc, ctx.users, actor.requestId);
    },
  );

  app.put(
    '/api/v1/documents/:id/move',
    {
      schema: {
        tags,
        summary: 'Move under parentId (null: to the root), at index among its children (default: last)',
        params: idParam,
        body: moveBody,
        response: { 200: envelope(documentResponse), ...errorResponses(400, 401, 403, 404, 'DOCUMENT_ARCHIVED') },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      const { id } = request.params;
      await moveDocument(ctx, actor, id, request.body ?? {});
      return success(await presentDocument(await getDocument(ctx, actor, id), ctx.users, actor.requestId));
    },
  );

  app.delete(
    '/api/v1/documents/:id',
    {
      schema: {
        tags,
        summary: 'Delete the document; its children become root documents',
        params: idParam,
        response: { 200: voidEnvelope, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      await deleteDocument(ctx, actor, request.params.id, false);
      return SUCCESS_VOID;
    },
  );

  app.delete(
    '/api/v1/documents/:id/cascade',
    {
      schema: {
        tags,
        summary: 'Delete the document and all its descendants, permanently',
        params: idParam,
        response: { 200: voidEnvelope, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      await deleteDocument(ctx, actor, request.params.id, true);
      return SUCCESS_VOID;
    },
  );

  for (const [action, published] of [
    ['publish', true],
    ['unpublish', false],
  ] as const) {
    app.post(
      `/api/v1/documents/:id/${action}`,
      {
        schema: {
          tags,
          summary: published ? 'Make the document readable without signing in' : 'Stop public reading',
          params: idParam,
          // Publishing an archived document is refused; unpublishing one is allowed.
          response: {
            200: voidEnvelope,
            ...(published
              ? errorResponses(400, 401, 403, 404, 'DOCUMENT_ARCHIVED')
              : errorResponses(400, 401, 403, 404)),
          },
        },
      },
      async (request) => {
        const actor = requireActor(request);
        await setPublication(ctx, actor, request.params.id, published);
        return SUCCESS_VOID;
      },
    );
  }
}
