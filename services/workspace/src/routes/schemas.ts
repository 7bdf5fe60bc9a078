import { ROLES } from '@wiki/auth';
import {
  errorEnvelope,
  type JsonSchema,
  nullableString,
  nullableTimestamp,
  nullableUuid,
  object,
  timestamp,
  uuid,
} from '@wiki/http';

/** Request and response schemas shared by this service's routes (the API shapes of spec section 2). */

export const role = { type: 'string', enum: [...ROLES] } as const;
export const hexColor = {
  type: 'string',
  maxLength: 20,
  pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$',
} as const;
export const nullableHexColor = { ...hexColor, type: ['string', 'null'] } as const;

/** `{id, name, avatar}` of whoever invited; null when nobody did (a workspace's creator). */
const userRef: JsonSchema = {
  type: ['object', 'null'],
  properties: { id: uuid, name: nullableString, avatar: nullableString },
  required: ['id', 'name', 'avatar'],
};

export const workspaceResponse: JsonSchema = object(
  {
    id: uuid,
    name: { type: 'string' },
    description: nullableString,
    icon: nullableString,
    color: nullableString,
    ownerId: uuid,
    isDefault: { type: 'boolean' },
    isArchived: { type: 'boolean' },
    documentCount: { type: 'integer' },
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

export const memberResponse: JsonSchema = object(
  {
    id: uuid,
    userId: uuid,
    userName: { type: 'string' },
    userEmail: { type: 'string' },
    userAvatar: nullableString,
    role,
    status: { type: 'string' },
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

export const memberSearchResponse: JsonSchema = object(
  { userId: uuid, name: { type: 'string' }, email: { type: 'string' }, avatar: nullableString, role },
  ['userId', 'name', 'email', 'avatar', 'role'],
);

export const invitationResultResponse: JsonSchema = object(
  { invitationId: uuid, email: { type: 'string' }, role, expiresAt: timestamp, inviteLink: { type: 'string' } },
  ['invitationId', 'email', 'role', 'expiresAt', 'inviteLink'],
);

export const invitationResponse: JsonSchema = object(
  {
    id: uuid,
    email: { type: 'string' },
    role,
    status: { type: 'string', enum: ['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED'] },
    message: nullableString,
    token: { type: 'string' },
    invitedBy: userRef,
    invitedAt: timestamp,
    expiresAt: timestamp,
    workspace: object({ id: uuid, name: { type: 'string' }, icon: nullableString }, ['id', 'name', 'icon']),
  },
  ['id', 'email', 'role', 'status', 'message', 'token', 'invitedBy', 'invitedAt', 'expiresAt', 'workspace'],
);

export const themes = ['light', 'dark', 'system'] as const;

export const preferenceResponse: JsonSchema = object(
  {
    lastDocumentId: nullableUuid,
    lastWorkspaceId: nullableUuid,
    theme: { type: 'string', enum: [...themes] },
    sidebarCollapsed: { type: 'boolean' },
    locale: { type: 'string' },
    notificationsEnabled: { type: 'boolean' },
  },
  ['lastDocumentId', 'lastWorkspaceId', 'theme', 'sidebarCollapsed', 'locale', 'notificationsEnabled'],
);

export const userResponse: JsonSchema = object(
  {
    id: uuid,
    email: { type: 'string' },
    name: { type: 'string' },
    avatarUrl: nullableString,
    status: { type: 'string' },
    lastLoginAt: nullableTimestamp,
    createdAt: timestamp,
    preference: preferenceResponse,
  },
  ['id', 'email', 'name', 'avatarUrl', 'status', 'lastLoginAt', 'createdAt', 'preference'],
);

export const mcpKeyResponse: JsonSchema = object(
  {
    id: uuid,
    name: { type: 'string' },
    prefix: { type: 'string' },
    lastUsedAt: nullableTimestamp,
    createdAt: timestamp,
  },
  ['id', 'name', 'prefix', 'lastUsedAt', 'createdAt'],
);

export const createdMcpKeyResponse: JsonSchema = object(
  { id: uuid, name: { type: 'string' }, key: { type: 'string' }, prefix: { type: 'string' }, createdAt: timestamp },
  ['id', 'name', 'key', 'prefix', 'createdAt'],
);

export const internalUserResponse: JsonSchema = object(
  { id: uuid, email: { type: 'string' }, name: { type: 'string' }, avatarUrl: nullableString, idpUid: nullableString },
  ['id', 'email', 'name', 'avatarUrl', 'idpUid'],
);

export const membershipResponse: JsonSchema = object(
  { workspaceId: uuid, userId: uuid, memberId: uuid, role, workspaceArchived: { type: 'boolean' } },
  ['workspaceId', 'userId', 'memberId', 'role', 'workspaceArchived'],
);

export const noContent: JsonSchema = { type: 'null', description: 'No Content' };

/** The error envelope under each listed status, so the OpenAPI description shows the failures. */
export function errors(...statuses: number[]): Record<number, JsonSchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorEnvelope]));
}

/** The failures every signed-in route can answer with. */
export const COMMON_ERRORS = [400, 401] as const;

export const keyOwnerResponse: JsonSchema = object(
  {
    userId: uuid,
    email: { type: 'string' },
    name: { type: 'string' },
    avatarUrl: nullableString,
    idpUid: nullableString,
  },
  ['userId', 'email', 'name', 'avatarUrl', 'idpUid'],
);
