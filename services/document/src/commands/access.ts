import type { Role } from '@wiki/auth';
import { notFound, refusal } from '@wiki/http';
import type { DocumentContext } from '../context.js';
import type { DocumentState } from '../db/documents.js';

/**
 * The workspace of a document the user may act on with at least `minimum`: 404 when the document
 * does not exist or the user is not a member of its workspace (existence is not leaked), 403 when
 * their role is too low. `requestId` (the request being served) goes with a look-up at the
 * workspace service.
 */
export async function requireDocumentRole(
  ctx: DocumentContext,
  documentId: string,
  userId: string,
  minimum: Role,
  requestId?: string,
): Promise<string> {
  const workspaceId = await ctx.workspaceOf(documentId);
  if (!workspaceId) throw notFound('Document');
  await ctx.membership.requireRole(workspaceId, userId, minimum, 'Document', requestId);
  return workspaceId;
}

/**
 * An archived document is read-only until restored (ARCHITECTURE 5.11: canEdit needs a document
 * that is not archived): editing, publishing, moving it or saving collab state is a 409. Call it
 * on the state read under the document's row lock (findState 'update'), so an archiving that
 * commits meanwhile is seen. Deleting and unpublishing stay allowed.
 */
export function requireNotArchived(doc: DocumentState, doing: string): void {
  if (doc.isArchived) throw archivedConflict(doing);
}

/** The 409 for a change to an archived document. */
export const archivedConflict = (doing: string) =>
  refusal('DOCUMENT_ARCHIVED', `This document is archived; restore it before ${doing} it`);
