import type { Role } from '@wiki/auth';
import { notFound } from '@wiki/http';
import type { DocumentContext } from '../context.js';
import { findWorkspaceOf } from '../db/documents.js';

/**
 * The workspace of a document the user may act on with at least `minimum`: 404 when the document
 * does not exist or the user is not a member of its workspace (existence is not leaked), 403 when
 * their role is too low.
 */
export async function requireDocumentRole(ctx: DocumentContext, documentId: string, userId: string, minimum: Role): Promise<string> {
  const workspaceId = await findWorkspaceOf(ctx.pool, documentId);
  if (!workspaceId) throw notFound('Document');
  await ctx.membership.requireRole(workspaceId, userId, minimum, 'Document');
  return workspaceId;
}
