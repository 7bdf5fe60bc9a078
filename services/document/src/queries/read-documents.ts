import { atLeast, type Role } from '@wiki/auth';
import { notFound } from '@wiki/http';
import { requireDocumentRole } from '../commands/access.js';
import type { Actor, DocumentContext } from '../context.js';
import { type DocumentDetail, findState } from '../db/documents.js';
import type { Answer } from './remembered-answers.js';
import type { TreeAnswer } from './tree-answers.js';

/**
 * Reads for members (VIEWER and up). Archived documents are left out of lists, trees and children.
 * `reader` is the caller: their id for the role check, their request id for a look-up it causes.
 */
type Reader = Pick<Actor, 'userId' | 'requestId'>;

/** One query for the document (a prepared statement); the role check is answered from the membership projection. */
export async function getDocument(ctx: DocumentContext, reader: Reader, id: string): Promise<DocumentDetail> {
  const doc = await ctx.prepared.findDetail(id);
  if (!doc) throw notFound('Document');
  await ctx.membership.requireRole(doc.workspaceId, reader.userId, 'VIEWER', 'Document', reader.requestId);
  return doc;
}

/**
 * What the caller may do with a document: their role in its workspace, and canEdit as the collab
 * server decides it (EDITOR and up, the document not archived; ARCHITECTURE 5.11). The web app
 * reads it to lock the editor and hide controls; the writes check again. 404 for non-members.
 */
export async function permissionFor(
  ctx: DocumentContext,
  reader: Reader,
  id: string,
): Promise<{ canEdit: boolean; role: Role; workspaceId: string }> {
  const doc = await findState(ctx.pool, id);
  if (!doc) throw notFound('Document');
  const role = await ctx.membership.requireRole(doc.workspaceId, reader.userId, 'VIEWER', 'Document', reader.requestId);
  return { canEdit: atLeast(role, 'EDITOR') && !doc.isArchived, role, workspaceId: doc.workspaceId };
}

/**
 * The root documents of a workspace, or the visible children of `parentId` in it, as the response
 * body (lists are remembered per workspace version: queries/list-answers.ts). A parentId that is
 * no document of this workspace is a 404, as for /documents/{id}/children; an archived parent
 * answers an empty list there and here. Only an empty list costs the look-up that tells the two
 * apart.
 */
export async function listDocuments(
  ctx: DocumentContext,
  reader: Reader,
  workspaceId: string,
  parentId: string | null,
  acceptsGzip = false,
): Promise<Answer> {
  await ctx.membership.requireRole(workspaceId, reader.userId, 'VIEWER', 'Workspace', reader.requestId);
  const { empty, ...answer } = await ctx.lists.children(workspaceId, parentId, acceptsGzip);
  if (empty && parentId !== null && (await ctx.workspaceOf(parentId)) !== workspaceId) throw notFound('Document');
  return answer;
}

/** The visible children of a document, as the response body. */
export async function childrenOf(
  ctx: DocumentContext,
  reader: Reader,
  id: string,
  acceptsGzip = false,
): Promise<Answer> {
  const workspaceId = await requireDocumentRole(ctx, id, reader.userId, 'VIEWER', reader.requestId);
  const { empty: _, ...answer } = await ctx.lists.children(workspaceId, id, acceptsGzip);
  return answer;
}

/** From the root down to the document itself, as the response body. */
export async function breadcrumbsOf(
  ctx: DocumentContext,
  reader: Reader,
  id: string,
  acceptsGzip = false,
): Promise<Answer> {
  const workspaceId = await requireDocumentRole(ctx, id, reader.userId, 'VIEWER', reader.requestId);
  return ctx.lists.ancestors(workspaceId, id, acceptsGzip);
}

/**
 * The whole visible tree of a workspace as the JSON body of the response (ApiResponse<List<...>>):
 * one query, nested in memory in O(n), and remembered until the workspace's documents change
 * (queries/tree-answers.ts).
 */
export async function treeBody(
  ctx: DocumentContext,
  reader: Reader,
  workspaceId: string,
  acceptsGzip = false,
): Promise<TreeAnswer> {
  await ctx.membership.requireRole(workspaceId, reader.userId, 'VIEWER', 'Workspace', reader.requestId);
  return ctx.treeAnswer(workspaceId, acceptsGzip);
}
