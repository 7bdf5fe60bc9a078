import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import {
  envelope,
  errorResponses,
  idParams,
  listOf,
  nullable,
  nullableTimestamp,
  object,
  pageOf,
  pageQuery,
  stringEnum,
  success,
  Type,
  timestamp,
  uuid,
} from '@wiki/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  changeWebhook,
  createWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  removeWebhook,
  type WebhookContext,
} from '../commands/webhooks.js';
import { DELIVERY_STATUSES } from '../db/webhook-deliveries.js';
import { MAX_WEBHOOK_FILTERS } from '../domain/webhook-events.js';
import { WEBHOOK_URL_MAX } from '../webhooks/address-guard.js';

const tags = ['Webhooks'];
const noContent = Type.Unsafe<undefined>({ type: 'null', description: 'No Content' });

const url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX,
  description: 'http or https, without credentials; its host must resolve to public addresses',
});
const events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: MAX_WEBHOOK_FILTERS,
  description: 'Event types (`document.created`), groups of them (`document.*`), or `*` for every event',
});

const webhook = object(
  { id: uuid, url: Type.String(), events: Type.Array(Type.String()), enabled: Type.Boolean(), createdAt: timestamp },
  ['id', 'url', 'events', 'enabled', 'createdAt'],
);
const createdWebhook = object(
  {
    id: uuid,
    url: Type.String(),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    createdAt: timestamp,
    secret: Type.String({ description: 'Signs every body (Wiki-Signature); shown in this answer only' }),
  },
  ['id', 'url', 'events', 'enabled', 'createdAt', 'secret'],
);
const delivery = object(
  {
    id: uuid,
    event: Type.String(),
    status: stringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer(),
    responseStatus: nullable(Type.Integer()),
    durationMs: nullable(Type.Integer()),
    createdAt: timestamp,
    deliveredAt: nullableTimestamp,
  },
  ['id', 'event', 'status', 'attempts', 'responseStatus', 'durationMs', 'createdAt', 'deliveredAt'],
);

const newWebhookBody = object({ url, events, enabled: Type.Boolean() }, ['url', 'events']);
const changeBody = object({ url, events, enabled: Type.Boolean() });

const caller = (request: FastifyRequest) => ({ userId: requireActor(request).userId, requestId: request.id });

/** Webhooks of a workspace and their delivery logs (ARCHITECTURE 5.18), for its ADMINs and OWNER. */
export function registerWebhookRoutes(server: FastifyInstance, ctx: WebhookContext): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1/workspaces/:id/webhooks',
    {
      schema: {
        tags,
        summary: 'The workspace’s webhooks (ADMIN and above)',
        params: idParams('id'),
        response: { 200: listOf(webhook), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => success(await listWebhooks(ctx, request.params.id, caller(request))),
  );

  app.post(
    '/api/v1/workspaces/:id/webhooks',
    {
      schema: {
        tags,
        summary: 'Adds a webhook; the answer alone holds its secret (ADMIN and above)',
        params: idParams('id'),
        body: newWebhookBody,
        response: {
          201: envelope(createdWebhook),
          ...errorResponses(400, 401, 403, 404, 'WEBHOOK_LIMIT_REACHED'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(success(await createWebhook(ctx, request.params.id, caller(request), request.body))),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'One webhook (ADMIN and above of its workspace)',
        params: idParams('id'),
        response: { 200: envelope(webhook), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => success(await getWebhook(ctx, request.params.id, caller(request))),
  );

  app.put(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Changes a webhook’s url, events or enabled (any of them); enabling forgets past failures',
        params: idParams('id'),
        body: changeBody,
        response: { 200: envelope(webhook), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => success(await changeWebhook(ctx, request.params.id, caller(request), request.body)),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Deletes a webhook and its delivery log; nothing more is sent',
        params: idParams('id'),
        response: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeWebhook(ctx, request.params.id, caller(request));
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'The webhook’s deliveries, newest first, a page at a time',
        params: idParams('id'),
        querystring: pageQuery,
        response: { 200: pageOf(delivery), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => success(await listDeliveries(ctx, request.params.id, caller(request), request.query)),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        summary: 'Sends a delivered or failed delivery again (202: queued; the log shows the outcome)',
        params: idParams('id', 'deliveryId'),
        response: { 202: envelope(delivery), ...errorResponses(400, 401, 403, 404, 'DELIVERY_PENDING') },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(success(await redeliver(ctx, request.params.id, request.params.deliveryId, caller(request)))),
  );
}
