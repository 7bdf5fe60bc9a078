import { ROLES } from '@wiki/auth';
import { listOf, nullable, nullableString, nullableUuid, object, stringEnum, Type, timestamp, uuid } from '@wiki/http';

/** Response and request shapes of the document routes (fast-json-stringify writes only these fields). */

export const TITLE_MAX = 500;
export const ICON_MAX = 50;
/** Not in the spec; a sanity bound for a URL. */
export const COVER_URL_MAX = 2048;

export const userRef = object({ id: uuid, name: Type.String(), avatarUrl: nullableString });

export const documentResponse = object({
  id: uuid,
  title: Type.String(),
  content: Type.String({ description: 'The block-editor JSON array, as a string' }),
  excerpt: Type.String(),
  parentId: nullableUuid,
  workspaceId: uuid,
  ownerId: uuid,
  icon: nullableString,
  coverImageUrl: nullableString,
  revision: Type.Integer({
    minimum: 1,
    description: 'Counts the stored changes of title, content, icon and cover (1 at creation); also the ETag',
  }),
  isTemplate: Type.Boolean(),
  isArchived: Type.Boolean(),
  wordCount: Type.Integer(),
  hasChildren: Type.Boolean(),
  childCount: Type.Integer(),
  openCommentCount: Type.Integer(),
  createdBy: uuid,
  lastEditedBy: uuid,
  createdByUser: userRef,
  lastEditedByUser: userRef,
  isPublished: Type.Boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const listItemResponse = object({
  id: uuid,
  title: Type.String(),
  parentId: nullableUuid,
  workspaceId: uuid,
  icon: nullableString,
  hasChildren: Type.Boolean(),
  childCount: Type.Integer(),
  updatedAt: timestamp,
  /** Beyond the spec: the document's open comment threads (the web app's tree shows them). */
  openCommentCount: Type.Integer(),
});

export const breadcrumbResponse = object({ id: uuid, title: Type.String() });

/** DocumentPermissionResponse of the spec, for the caller (GET /documents/{id}/permission). */
export const permissionResponse = object({
  canEdit: Type.Boolean(),
  role: stringEnum([...ROLES]),
  workspaceId: uuid,
});

/** DocumentTreeResponse, recursive through `children`. Registered once with app.addSchema. */
export const TREE_NODE_ID = 'DocumentTreeResponse';
export const treeNodeSchema = {
  $id: TREE_NODE_ID,
  type: 'object',
  properties: {
    id: uuid,
    title: Type.String(),
    parentId: nullableUuid,
    workspaceId: uuid,
    icon: nullableString,
    updatedAt: timestamp,
    children: Type.Array(Type.Ref(`${TREE_NODE_ID}#`)),
  },
};

/**
 * The tree route's answer: `ApiResponse<DocumentTreeResponse[]>`, sent as the bytes treeJson wrote
 * (a Buffer is sent as is, so its type is Buffer; the schema describes the JSON in it).
 */
export const treeResponse = Type.Unsafe<Buffer>(listOf(Type.Ref(`${TREE_NODE_ID}#`)));

export const publicDocumentResponse = object({
  id: uuid,
  title: Type.String(),
  content: Type.String(),
  icon: nullableString,
  coverImageUrl: nullableString,
  parentId: nullableUuid,
  hasChildren: Type.Boolean(),
  childCount: Type.Integer(),
  wordCount: Type.Integer(),
  updatedAt: timestamp,
});

export const publicListItemResponse = object({
  id: uuid,
  title: Type.String(),
  icon: nullableString,
  parentId: nullableUuid,
  hasChildren: Type.Boolean(),
  childCount: Type.Integer(),
});

/** Checked in the domain (domain/cover-image.ts): only http(s) URLs and same-origin paths. */
const coverImageUrl = nullable(
  Type.String({
    maxLength: COVER_URL_MAX,
    description: 'An absolute http(s) URL or a same-origin path starting with a single "/"; null clears it',
  }),
);

/** Content: a JSON array of blocks or a string holding one (checked in the domain, any JSON here). */
const content = Type.Unknown({
  description: 'Block-editor JSON: an array of blocks, or a string holding one (max 2 MiB)',
});

export const createBody = object(
  {
    title: Type.String({ maxLength: TITLE_MAX }),
    workspaceId: uuid,
    parentId: nullableUuid,
    content,
    icon: nullable(Type.String({ maxLength: ICON_MAX })),
    coverImageUrl,
  },
  ['workspaceId'],
);

/** The revision the writer last saw: a 412 when the document moved on since (also If-Match). */
const lastRevision = Type.Integer({
  minimum: 1,
  description: 'The revision the change is based on: when the document is at another one, 412 and nothing changes',
});

export const updateBody = object({
  title: Type.String({ maxLength: TITLE_MAX }),
  content,
  icon: nullable(Type.String({ maxLength: ICON_MAX })),
  coverImageUrl,
  isArchived: Type.Boolean(),
  lastRevision,
});

/** POST /documents/{id}/append: blocks added after the current content, on the server. */
export const appendBody = object(
  {
    content: Type.String({
      minLength: 1,
      description: 'A JSON array of blocks, as a string (the format and limits of content): appended as they are',
    }),
    lastRevision,
  },
  ['content'],
);

export const moveBody = nullable(object({ parentId: nullableUuid, index: Type.Integer({ minimum: 0 }) }));
