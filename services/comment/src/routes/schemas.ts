import {
  notBlank,
  nullable,
  nullableString,
  nullableTimestamp,
  object,
  openObject,
  stringEnum,
  Type,
  timestamp,
  uuid,
  withDefault,
} from '@wiki/http';
import { CONTENT_MAX_CHARS } from '../domain/mentions.js';
import { THREAD_STATUS_FILTERS } from '../domain/rules.js';

/** Limits of the comment API (spec 4.6 leaves them open; these are the documented decisions). */
export const LIMITS = {
  content: CONTENT_MAX_CHARS,
  selectedText: 2_000,
  blockId: 255,
  /** Offsets are character positions inside one block. */
  offset: 2_147_483_647,
} as const;

const offset = Type.Integer({ minimum: 0, maximum: LIMITS.offset });

export const anchorInput = object(
  {
    blockId: notBlank(LIMITS.blockId),
    startOffset: offset,
    endOffset: offset,
    selectedText: Type.String({ maxLength: LIMITS.selectedText }),
  },
  ['blockId', 'startOffset', 'endOffset', 'selectedText'],
);

export const contentInput = object({ content: notBlank(LIMITS.content) }, ['content']);

export const createThreadBody = object({ anchor: anchorInput, comment: contentInput }, ['anchor', 'comment']);

export const statusQuery = object({ status: withDefault(stringEnum(THREAD_STATUS_FILTERS), 'all') });

export const userReference = nullable(
  openObject({ id: uuid, name: Type.String(), avatarUrl: nullableString }, ['id', 'name', 'avatarUrl']),
);

export const commentResponse = object(
  {
    id: uuid,
    threadId: uuid,
    userId: uuid,
    userName: Type.String(),
    userAvatar: nullableString,
    content: Type.String(),
    isEdited: Type.Boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  ['id', 'threadId', 'userId', 'userName', 'userAvatar', 'content', 'isEdited', 'createdAt', 'updatedAt'],
);

export const threadResponse = object(
  {
    id: uuid,
    documentId: uuid,
    workspaceId: uuid,
    anchor: object(
      {
        blockId: Type.String(),
        startOffset: Type.Integer(),
        endOffset: Type.Integer(),
        selectedText: Type.String(),
      },
      ['blockId', 'startOffset', 'endOffset', 'selectedText'],
    ),
    status: stringEnum(['open', 'resolved']),
    resolvedAt: nullableTimestamp,
    resolvedBy: userReference,
    createdBy: userReference,
    comments: Type.Array(commentResponse),
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  [
    'id',
    'documentId',
    'workspaceId',
    'anchor',
    'status',
    'resolvedAt',
    'resolvedBy',
    'createdBy',
    'comments',
    'createdAt',
    'updatedAt',
  ],
);
