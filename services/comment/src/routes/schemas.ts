import { type JsonSchema, notBlank, nullableString, nullableTimestamp, object, timestamp, uuid } from '@wiki/http';
import { THREAD_STATUS_FILTERS } from '../domain/rules.js';

/** Limits of the comment API (spec 4.6 leaves them open; these are the documented decisions). */
export const LIMITS = {
  content: 10_000,
  selectedText: 2_000,
  blockId: 255,
  /** Offsets are character positions inside one block. */
  offset: 2_147_483_647,
} as const;

const offset = { type: 'integer', minimum: 0, maximum: LIMITS.offset } as const;

export const anchorInput = object(
  {
    blockId: notBlank(LIMITS.blockId),
    startOffset: offset,
    endOffset: offset,
    selectedText: { type: 'string', maxLength: LIMITS.selectedText },
  },
  ['blockId', 'startOffset', 'endOffset', 'selectedText'],
);

export const contentInput = object({ content: notBlank(LIMITS.content) }, ['content']);

export const createThreadBody = object({ anchor: anchorInput, comment: contentInput }, ['anchor', 'comment']);

export const statusQuery = object({ status: { type: 'string', enum: [...THREAD_STATUS_FILTERS], default: 'all' } });

export const userReference: JsonSchema = {
  type: ['object', 'null'],
  properties: { id: uuid, name: { type: 'string' }, avatarUrl: nullableString },
  required: ['id', 'name', 'avatarUrl'],
};

export const commentResponse = object(
  {
    id: uuid,
    threadId: uuid,
    userId: uuid,
    userName: { type: 'string' },
    userAvatar: nullableString,
    content: { type: 'string' },
    isEdited: { type: 'boolean' },
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
        blockId: { type: 'string' },
        startOffset: { type: 'integer' },
        endOffset: { type: 'integer' },
        selectedText: { type: 'string' },
      },
      ['blockId', 'startOffset', 'endOffset', 'selectedText'],
    ),
    status: { type: 'string', enum: ['open', 'resolved'] },
    resolvedAt: nullableTimestamp,
    resolvedBy: userReference,
    createdBy: userReference,
    comments: { type: 'array', items: commentResponse },
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
