import { type JsonSchema, nullableString, nullableUuid, object, timestamp, uuid } from '@wiki/http';

/** Response and request shapes of the document routes (fast-json-stringify writes only these fields). */

export const TITLE_MAX = 500;
export const ICON_MAX = 50;
/** Not in the spec; a sanity bound for a URL. */
export const COVER_URL_MAX = 2048;

const userRef = object({ id: uuid, name: { type: 'string' }, avatarUrl: nullableString });

export const documentResponse: JsonSchema = object({
  id: uuid,
  title: { type: 'string' },
  content: { type: 'string', description: 'The block-editor JSON array, as a string' },
  excerpt: { type: 'string' },
  parentId: nullableUuid,
  workspaceId: uuid,
  ownerId: uuid,
  icon: nullableString,
  coverImageUrl: nullableString,
  isTemplate: { type: 'boolean' },
  isArchived: { type: 'boolean' },
  wordCount: { type: 'integer' },
  hasChildren: { type: 'boolean' },
  childCount: { type: 'integer' },
  openCommentCount: { type: 'integer' },
  createdBy: uuid,
  lastEditedBy: uuid,
  createdByUser: userRef,
  lastEditedByUser: userRef,
  isPublished: { type: 'boolean' },
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const listItemResponse: JsonSchema = object({
  id: uuid,
  title: { type: 'string' },
  parentId: nullableUuid,
  workspaceId: uuid,
  icon: nullableString,
  hasChildren: { type: 'boolean' },
  childCount: { type: 'integer' },
  updatedAt: timestamp,
});

export const breadcrumbResponse: JsonSchema = object({ id: uuid, title: { type: 'string' } });

/** DocumentTreeResponse, recursive through `children`. Registered once with app.addSchema. */
export const TREE_NODE_ID = 'DocumentTreeResponse';
export const treeNodeSchema: JsonSchema = {
  $id: TREE_NODE_ID,
  type: 'object',
  properties: {
    id: uuid,
    title: { type: 'string' },
    parentId: nullableUuid,
    workspaceId: uuid,
    icon: nullableString,
    updatedAt: timestamp,
    children: { type: 'array', items: { $ref: `${TREE_NODE_ID}#` } },
  },
};

export const publicDocumentResponse: JsonSchema = object({
  id: uuid,
  title: { type: 'string' },
  content: { type: 'string' },
  icon: nullableString,
  coverImageUrl: nullableString,
  parentId: nullableUuid,
  hasChildren: { type: 'boolean' },
  childCount: { type: 'integer' },
  wordCount: { type: 'integer' },
  updatedAt: timestamp,
});

export const publicListItemResponse: JsonSchema = object({
  id: uuid,
  title: { type: 'string' },
  icon: nullableString,
  parentId: nullableUuid,
  hasChildren: { type: 'boolean' },
  childCount: { type: 'integer' },
});

/** Checked in the domain (domain/cover-image.ts): only http(s) URLs and same-origin paths. */
const coverImageUrl = {
  type: ['string', 'null'],
  maxLength: COVER_URL_MAX,
  description: 'An absolute http(s) URL or a same-origin path starting with a single "/"; null clears it',
};

/** Content: a JSON array of blocks or a string holding one (checked in the domain, any JSON here). */
const content = { description: 'Block-editor JSON: an array of blocks, or a string holding one (max 2 MiB)' };

export const createBody: JsonSchema = object(
  {
    title: { type: 'string', maxLength: TITLE_MAX },
    workspaceId: uuid,
    parentId: nullableUuid,
    content,
    icon: { type: ['string', 'null'], maxLength: ICON_MAX },
    coverImageUrl,
  },
  ['workspaceId'],
);

export const updateBody: JsonSchema = object({
  title: { type: 'string', maxLength: TITLE_MAX },
  content,
  icon: { type: ['string', 'null'], maxLength: ICON_MAX },
  coverImageUrl,
  isArchived: { type: 'boolean' },
});

export const moveBody: JsonSchema = {
  ...object({ parentId: nullableUuid, index: { type: 'integer', minimum: 0 } }),
  type: ['object', 'null'],
};
