import {
  envelope,
  idParams,
  nullable,
  nullableString,
  nullableTimestamp,
  nullableUuid,
  object,
  PAGE_QUERY_PROPERTIES,
  pageOf,
  stringEnum,
  Type,
  timestamp,
  uuid,
  withDefault,
} from '@wiki/http';
import { NOTIFICATION_STATUSES, NOTIFICATION_TYPES } from '../domain/notification.js';

/** `sort` is `<createdAt|readAt>,<ASC|DESC>`. */
export const sortedPageQuery = object({
  ...PAGE_QUERY_PROPERTIES,
  sort: withDefault(Type.String({ pattern: '^(createdAt|readAt),(ASC|DESC)$' }), 'createdAt,DESC'),
});

export const idParam = idParams('id');
export const typeParam = object({ type: stringEnum(NOTIFICATION_TYPES) }, ['type']);

/** NotificationResponse (spec 2). */
export const notification = object(
  {
    id: uuid,
    type: stringEnum(NOTIFICATION_TYPES),
    status: stringEnum(NOTIFICATION_STATUSES),
    title: Type.String(),
    message: Type.String(),
    actionable: Type.Boolean(),
    actor: nullable(object({ id: uuid, name: Type.String(), avatar: nullableString }, ['id', 'name', 'avatar'])),
    workspace: nullable(object({ id: uuid, name: Type.String() }, ['id', 'name'])),
    document: nullable(object({ id: uuid, title: Type.String() }, ['id', 'title'])),
    references: object({ invitationId: nullableUuid, commentThreadId: nullableUuid }, [
      'invitationId',
      'commentThreadId',
    ]),
    metadata: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
    createdAt: timestamp,
    readAt: nullableTimestamp,
    expiresAt: nullableTimestamp,
  },
  [
    'id',
    'type',
    'status',
    'title',
    'message',
    'actionable',
    'actor',
    'workspace',
    'document',
    'references',
    'metadata',
    'createdAt',
    'readAt',
    'expiresAt',
  ],
);

/** ApiResponse<Page<NotificationResponse>>. */
export const notificationPage = pageOf(notification);

export const unreadCount = envelope(object({ unreadCount: Type.Integer() }, ['unreadCount']));
export const markedCount = envelope(object({ markedCount: Type.Integer() }, ['markedCount']));
export const oneNotification = envelope(notification);
