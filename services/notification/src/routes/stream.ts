import type {} from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireActor } from '@wiki/auth';
import { errorResponses, object, openObject, Type } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { FastifyInstance } from 'fastify';
import { type StreamLimit, TOO_MANY_STREAMS_NOTICE } from '../live/stream-limit.js';
import type { NotificationStreams, ServedStream } from '../live/streams.js';

/** An SSE id this service gave out: a notification number (at most 18 digits, under 2^63). */
const eventId = Type.String({ pattern: '^[0-9]{1,18}$' });

/**
 * `GET /notifications/stream` (ARCHITECTURE 5.6): Server-Sent Events `notification` (each new
 * notification, `id:` its number) and `unread-count` (whenever the count changes), a heartbeat
 * comment, and resumption from `Last-Event-ID` (or `lastEventId` in the query, for clients that
 * cannot set headers).
 */
export function registerStreamRoute(
  server: FastifyInstance,
  streams: NotificationStreams,
  limit: StreamLimit,
  membership: MembershipAccess,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/notifications/stream',
    {
      schema: {
        tags: ['Notifications'],
        summary: 'The caller’s notifications and unread count as they change (text/event-stream)',
        description:
          'Events `notification` (data: NotificationResponse) and `unread-count` (data: `{ unreadCount }`), ' +
          'each with an `id:`; a heartbeat comment every 25 s. Reconnecting with `Last-Event-ID` (or ' +
          '`lastEventId`) sends the notifications made since, then the current count.',
        querystring: object({
          lastEventId: eventId,
          workspaceId: Type.String({
            format: 'uuid',
            description:
              'Also send `tree` events (data: `{ workspaceId }`, no id) when documents of this workspace are created, ' +
              'moved, renamed, archived, restored or deleted, or their open comment threads change; ' +
              'only while the caller is a member of it.',
          }),
        }),
        headers: openObject({ 'last-event-id': eventId }),
        response: {
          200: Type.String({ description: 'text/event-stream' }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const { userId } = requireActor(request);
      // The header wins: a browser's EventSource sends it on every reconnect, while a query
      // parameter stays whatever the page first put in the URL.
      const given = request.headers['last-event-id'] ?? request.query.lastEventId;
      // "From now" is read before the headers go out: a notification made once the client holds
      // the answer is sent on it, never counted as older than the stream.
      const from = given === undefined ? await streams.currentPosition(userId) : Number(given);
      // A workspace the caller is not a member of is no error: the stream carries notifications only.
      const { workspaceId } = request.query;
      const treeOf =
        workspaceId && (await membership.roleOf(workspaceId, userId, request.id)) ? workspaceId : undefined;
      // Counted last, right before it is served: nothing between can fail and leave it counted.
      let served: ServedStream | undefined;
      let pushedOut = false;
      const slot = await limit.admit(userId, () => {
        pushedOut = true;
        served?.endWith(TOO_MANY_STREAMS_NOTICE);
      });
      reply.hijack();
      if (reply.raw.destroyed) {
        // The client left while its slot was taken: nothing to serve.
        slot.release();
        return reply;
      }
      reply.raw.once('close', () => slot.release());
      served = streams.serve(userId, reply.raw, from, request.id, treeOf);
      if (pushedOut) served.endWith(TOO_MANY_STREAMS_NOTICE);
      return reply;
    },
  );
}
