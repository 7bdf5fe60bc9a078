import type {} from '@fastify/swagger'; // its schema keywords (tags, summary) for route types
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import { errorResponses, pageQuery, success, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { actioned, deleteOne, dismissOne, listPage, read, readAll, unreadCountOf } from '../commands/notifications.js';
import type { PreparedReads } from '../db/prepared-reads.js';
import {
  idParam,
  markedCount,
  notificationPage,
  oneNotification,
  sortedPageQuery,
  typeParam,
  unreadCount,
} from './schemas.js';

/** 204: no body. */
const noContent = Type.Unsafe<undefined>({ type: 'null', description: 'No Content' });
const errors = errorResponses(400, 401, 404);
const tags = ['Notifications'];
const BASE = '/api/v1/notifications';

/** Spec 4.9: the signed-in user's own notifications. */
export function registerNotificationRoutes(
  server: FastifyInstance,
  { pool, reads, notify }: { pool: DatabasePool; reads: PreparedReads; notify: (userIds: Iterable<string>) => void },
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  /** After a change has committed: the user's open streams (on any replica) send the new count. */
  const changed = <T>(userId: string, result: T): T => {
    notify([userId]);
    return result;
  };

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'The caller’s notifications (not dismissed, not expired), a page at a time',
        querystring: sortedPageQuery,
        response: { 200: notificationPage, ...errors },
      },
    },
    async (request) => success(await listPage(reads, requireActor(request).userId, request.query)),
  );

  app.get(
    `${BASE}/unread`,
    {
      schema: {
        tags,
        summary: 'The caller’s unread notifications, newest first',
        querystring: pageQuery,
        response: { 200: notificationPage, ...errors },
      },
    },
    async (request) =>
      success(await listPage(reads, requireActor(request).userId, { ...request.query, status: 'UNREAD' })),
  );

  app.get(
    `${BASE}/type/:type`,
    {
      schema: {
        tags,
        summary: 'The caller’s notifications of one type, newest first',
        params: typeParam,
        querystring: pageQuery,
        response: { 200: notificationPage, ...errors },
      },
    },
    async (request) =>
      success(await listPage(reads, requireActor(request).userId, { ...request.query, type: request.params.type })),
  );

  app.get(
    `${BASE}/count`,
    {
      schema: {
        tags,
        summary: 'How many unread notifications the caller has',
        response: { 200: unreadCount, ...errors },
      },
    },
    async (request) => success(await unreadCountOf(reads, requireActor(request).userId)),
  );

  app.post(
    `${BASE}/read-all`,
    {
      schema: { tags, summary: 'Marks every unread notification read', response: { 200: markedCount, ...errors } },
    },
    async (request) => {
      const { userId } = requireActor(request);
      const result = await readAll(pool, userId);
      return success(result.markedCount > 0 ? changed(userId, result) : result);
    },
  );

  app.post(
    `${BASE}/:id/read`,
    {
      schema: {
        tags,
        summary: 'Marks a notification read (readAt is set the first time only)',
        params: idParam,
        response: { 200: oneNotification, ...errors },
      },
    },
    async (request) => {
      const { userId } = requireActor(request);
      return success(changed(userId, await read(pool, userId, request.params.id)));
    },
  );

  app.post(
    `${BASE}/:id/actioned`,
    {
      schema: {
        tags,
        summary: 'Marks a notification actioned',
        params: idParam,
        response: { 200: oneNotification, ...errors },
      },
    },
    async (request) => {
      const { userId } = requireActor(request);
      return success(changed(userId, await actioned(pool, userId, request.params.id)));
    },
  );

  app.post(
    `${BASE}/:id/dismiss`,
    {
      schema: {
        tags,
        summary: 'Hides a notification from lists and counts',
        params: idParam,
        response: { 204: noContent, ...errors },
      },
    },
    async (request, reply) => {
      const { userId } = requireActor(request);
      changed(userId, await dismissOne(pool, userId, request.params.id));
      return reply.status(204).send();
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Deletes a notification for good',
        params: idParam,
        response: { 204: noContent, ...errors },
      },
    },
    async (request, reply) => {
      const { userId } = requireActor(request);
      changed(userId, await deleteOne(pool, userId, request.params.id));
      return reply.status(204).send();
    },
  );
}
