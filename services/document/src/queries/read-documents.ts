import { notFound } from '@wiki/http';
import { requireDocumentRole } from '../commands/access.js';
import type { Actor, DocumentContext } from '../context.js';
import { ancestorsOf, type Breadcrumb, type DocumentDetail, type ListItem } from '../db/documents.js';
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
 * The root documents of a workspace, or the visible children of `parentId` in it. A parentId that
 * is no document of this workspace is a 404, as for /documents/{id}/children; an archived parent
 * answers an empty list there and here. Only an empty list costs the second query that tells the
 * two apart.
 */
export async function listDocuments(
  ctx: DocumentContext,
  reader: Reader,
  workspaceId: string,
  parentId: string | null,
): Promise<readonly ListItem[]> {
  await ctx.membership.requireRole(workspaceId, reader.userId, 'VIEWER', 'Workspace', reader.requestId);
  const items = await ctx.prepared.listChildren(workspaceId, parentId);
  if (items.length === 0 && parentId !== null && (await ctx.workspaceOf(parentId)) !== workspaceId)
    throw notFound('Document');
  return items;
}

export async function childrenOf(ctx: DocumentContext, reader: Reader, id: string): Promise<readonly ListItem[]> {
  const workspaceId = await requireDocumentRole(ctx, id, reader.userId, 'VIEWER', reader.requestId);
  return ctx.prepared.listChildren(workspaceId, id);
}

/** From the root down to the document itself. */
export async function breadcrumbsOf(ctx: DocumentContext, reader: Reader, id: string): Promise<readonly Breadcrumb[]> {
  await requireDocumentRole(ctx, id, reader.userId, 'VIEWER', reader.requestId);
  return ancestorsOf(ctx.pool, id);
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
