import type { UsersProjection } from '@wiki/projections';
import type { Breadcrumb, DocumentDetail, ListItem } from '../db/documents.js';
import type { PublicDocumentRow, PublicListRow } from '../db/public-documents.js';

/** Row → API shape: the only place that decides which fields leave the service. */

/** `{ id, name, avatarUrl }` as DocumentResponse shows a user. */
export interface UserRef {
  id: string;
  name: string;
  avatarUrl: string | null;
}

/**
 * A user the users projection did not know when the document was read, looked up at the workspace
 * service. A read does not fail because that service is away: the id is shown without a name.
 */
async function refOf(
  users: Pick<UsersProjection, 'resolveMany'>,
  userId: string,
  requestId?: string,
): Promise<UserRef> {
  const user = (await users.resolveMany([userId], requestId)).get(userId);
  return user ? { id: user.id, name: user.name, avatarUrl: user.avatarUrl } : { id: userId, name: '', avatarUrl: null };
}

/** DocumentResponse. `users` fills in a user the projection did not know when the row was read. */
/** `requestId`, the request being served, goes with a look-up of an unknown user. */
export async function presentDocument(
  doc: DocumentDetail,
  users: Pick<UsersProjection, 'resolveMany'>,
  requestId?: string,
) {
  const createdByUser: UserRef =
    doc.createdByName !== null
      ? { id: doc.createdBy, name: doc.createdByName, avatarUrl: doc.createdByAvatarUrl }
      : await refOf(users, doc.createdBy, requestId);
  const lastEditedByUser: UserRef =
    doc.lastEditedBy === doc.createdBy
      ? createdByUser
      : doc.lastEditedByName !== null
        ? { id: doc.lastEditedBy, name: doc.lastEditedByName, avatarUrl: doc.lastEditedByAvatarUrl }
        : await refOf(users, doc.lastEditedBy, requestId);
  return {
    id: doc.id,
    title: doc.title,
    content: doc.content,
    excerpt: doc.excerpt,
    parentId: doc.parentId,
    workspaceId: doc.workspaceId,
    ownerId: doc.ownerId,
    icon: doc.icon,
    coverImageUrl: doc.coverImageUrl,
    revision: doc.revision,
    isTemplate: doc.isTemplate,
    isArchived: doc.isArchived,
    wordCount: doc.wordCount,
    hasChildren: doc.childCount > 0,
    childCount: doc.childCount,
    openCommentCount: doc.openCommentCount,
    createdBy: doc.createdBy,
    lastEditedBy: doc.lastEditedBy,
    createdByUser,
    lastEditedByUser,
    isPublished: doc.isPublished,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** DocumentListResponse. */
export function presentListItem(item: ListItem) {
  return {
    id: item.id,
    title: item.title,
    parentId: item.parentId,
    workspaceId: item.workspaceId,
    icon: item.icon,
    hasChildren: item.childCount > 0,
    childCount: item.childCount,
    updatedAt: item.updatedAt,
    openCommentCount: item.openCommentCount,
  };
}

/** DocumentBreadcrumb. */
export function presentBreadcrumb(crumb: Breadcrumb) {
  return { id: crumb.id, title: crumb.title };
}

/** PublicDocumentResponse: no ownerId, workspaceId, collab state, isArchived or isTemplate. */
export function presentPublicDocument(doc: PublicDocumentRow) {
  return {
    id: doc.id,
    title: doc.title,
    content: doc.content,
    icon: doc.icon,
    coverImageUrl: doc.coverImageUrl,
    parentId: doc.parentId,
    hasChildren: doc.childCount > 0,
    childCount: doc.childCount,
    wordCount: doc.wordCount,
    updatedAt: doc.updatedAt,
  };
}

/** PublicDocumentListResponse. */
export function presentPublicListItem(item: PublicListRow) {
  return {
    id: item.id,
    title: item.title,
    icon: item.icon,
    parentId: item.parentId,
    hasChildren: item.childCount > 0,
    childCount: item.childCount,
  };
}
