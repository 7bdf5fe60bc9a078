import { ROLES } from '@wiki/auth';
import { EMAIL_MODES, type EmailMode, NOTIFICATION_TYPES, type NotificationType } from '@wiki/events';
import {
  nullable,
  nullableString,
  nullableTimestamp,
  nullableUuid,
  object,
  openObject,
  stringEnum,
  Type,
  timestamp,
  uuid,
} from '@wiki/http';

/** Request and response schemas shared by this service's routes (the API shapes of spec section 2). */

export const role = stringEnum(ROLES);
export const hexColor = Type.String({ maxLength: 20, pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' });
export const nullableHexColor = nullable(hexColor);

/** `{id, name, avatar}` of whoever invited; null when nobody did (a workspace's creator). */
const userRef = nullable(
  openObject({ id: uuid, name: nullableString, avatar: nullableString }, ['id', 'name', 'avatar']),
);

export const workspaceResponse = object(
  {
    id: uuid,
    name: Type.String(),
    description: nullableString,
    icon: nullableString,
    color: nullableString,
    ownerId: uuid,
    isDefault: Type.Boolean(),
    isArchived: Type.Boolean(),
    documentCount: Type.Integer(),
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  [
    'id',
    'name',
    'description',
    'icon',
    'color',
    'ownerId',
    'isDefault',
    'isArchived',
    'documentCount',
    'createdAt',
    'updatedAt',
  ],
);

export const memberResponse = object(
  {
    id: uuid,
    userId: uuid,
    userName: Type.String(),
    userEmail: Type.String(),
    userAvatar: nullableString,
    role,
    status: Type.String(),
    invitedBy: userRef,
    invitedAt: nullableTimestamp,
    acceptedAt: nullableTimestamp,
    createdAt: timestamp,
  },
  [
    'id',
    'userId',
    'userName',
    'userEmail',
    'userAvatar',
    'role',
    'status',
    'invitedBy',
    'invitedAt',
    'acceptedAt',
    'createdAt',
  ],
);

export const memberSearchResponse = object(
  { userId: uuid, name: Type.String(), email: Type.String(), avatar: nullableString, role },
  ['userId', 'name', 'email', 'avatar', 'role'],
);

export const invitationResultResponse = object(
  { invitationId: uuid, email: Type.String(), role, expiresAt: timestamp, inviteLink: Type.String() },
  ['invitationId', 'email', 'role', 'expiresAt', 'inviteLink'],
);

export const invitationResponse = object(
  {
    id: uuid,
    email: Type.String(),
    role,
    status: stringEnum(['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED']),
    message: nullableString,
    token: Type.String(),
    invitedBy: userRef,
    invitedAt: timestamp,
    expiresAt: timestamp,
    workspace: object({ id: uuid, name: Type.String(), icon: nullableString }, ['id', 'name', 'icon']),
  },
  ['id', 'email', 'role', 'status', 'message', 'token', 'invitedBy', 'invitedAt', 'expiresAt', 'workspace'],
);

export const themes = ['light', 'dark', 'system'] as const;

const emailMode = stringEnum(EMAIL_MODES);
const emailModeOfEachType = Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, emailMode])) as Record<
  NotificationType,
  typeof emailMode
>;

/**
 * A save's `emailNotifications`: some types and their modes. Not `object()`: an unknown type must
 * be refused (400), where the validator would silently drop a property the schema does not list.
 */
export const emailNotificationsPatch = Type.Unsafe<Partial<Record<NotificationType, EmailMode>>>({
  type: 'object',
  description: 'How each notification type is e-mailed; the types not named keep their mode',
  properties: emailModeOfEachType,
  propertyNames: stringEnum(NOTIFICATION_TYPES),
});

/** Every type's mode: the person's choices over the defaults (ARCHITECTURE 5.18). */
const emailNotificationsResponse = object(emailModeOfEachType, NOTIFICATION_TYPES);

export const preferenceResponse = object(
  {
    lastDocumentId: nullableUuid,
    lastWorkspaceId: nullableUuid,
    theme: stringEnum(themes),
    sidebarCollapsed: Type.Boolean(),
    locale: Type.String(),
    notificationsEnabled: Type.Boolean(),
    emailNotifications: emailNotificationsResponse,
  },
  [
    'lastDocumentId',
    'lastWorkspaceId',
    'theme',
    'sidebarCollapsed',
    'locale',
    'notificationsEnabled',
    'emailNotifications',
  ],
);

export const userResponse = object(
  {
    id: uuid,
    email: Type.String(),
    name: Type.String(),
    avatarUrl: nullableString,
    status: Type.String(),
    lastLoginAt: nullableTimestamp,
    createdAt: timestamp,
    preference: preferenceResponse,
  },
  ['id', 'email', 'name', 'avatarUrl', 'status', 'lastLoginAt', 'createdAt', 'preference'],
);

export const mcpKeyResponse = object(
  {
    id: uuid,
    name: Type.String(),
    prefix: Type.String(),
    lastUsedAt: nullable(
      Type.String({
        format: 'date-time',
        description: 'When the key was last used, to within a minute: it is written at most once a minute',
      }),
    ),
    createdAt: timestamp,
  },
  ['id', 'name', 'prefix', 'lastUsedAt', 'createdAt'],
);

export const createdMcpKeyResponse = object(
  { id: uuid, name: Type.String(), key: Type.String(), prefix: Type.String(), createdAt: timestamp },
  ['id', 'name', 'key', 'prefix', 'createdAt'],
);

export const internalUserResponse = object(
  {
    id: uuid,
    email: Type.String(),
    emailVerified: Type.Boolean(),
    name: Type.String(),
    avatarUrl: nullableString,
    idpUid: nullableString,
  },
  ['id', 'email', 'emailVerified', 'name', 'avatarUrl', 'idpUid'],
);

export const membershipResponse = object(
  { workspaceId: uuid, userId: uuid, memberId: uuid, role, workspaceArchived: Type.Boolean() },
  ['workspaceId', 'userId', 'memberId', 'role', 'workspaceArchived'],
);

/** A 204: the reply is sent without a payload (`reply.status(204).send()`). */
export const noContent = Type.Unsafe<undefined>({ type: 'null', description: 'No Content' });

export const keyOwnerResponse = object(
  {
    userId: uuid,
    email: Type.String(),
    name: Type.String(),
    avatarUrl: nullableString,
    idpUid: nullableString,
  },
  ['userId', 'email', 'name', 'avatarUrl', 'idpUid'],
);

export const invitationLinkResponse = object(
  {
    invitationId: uuid,
    workspaceId: uuid,
    workspaceName: Type.String(),
    email: Type.String(),
    role,
    message: nullableString,
    inviterName: nullableString,
    expiresAt: timestamp,
    link: Type.String(),
  },
  ['invitationId', 'workspaceId', 'workspaceName', 'email', 'role', 'message', 'inviterName', 'expiresAt', 'link'],
);
