import { nullableString, nullableUuid, object, Type, timestamp, uuid, withDefault } from '@wiki/http';

/** Shapes of GET /documents/archived (beyond the spec: the spec lists no archived documents). */

export const ARCHIVED_LIMIT_MAX = 500;

export const archivedQuery = object(
  {
    workspaceId: uuid,
    limit: withDefault(Type.Integer({ minimum: 1, maximum: ARCHIVED_LIMIT_MAX }), 100),
  },
  ['workspaceId'],
);

export const archivedItemResponse = object({
  id: uuid,
  title: Type.String(),
  parentId: nullableUuid,
  workspaceId: uuid,
  icon: nullableString,
  descendantCount: Type.Integer({ description: 'How many documents below it were archived with it' }),
  updatedAt: Type.String({
    ...timestamp,
    description: 'When it was archived (an archived document takes no other change)',
  }),
});
