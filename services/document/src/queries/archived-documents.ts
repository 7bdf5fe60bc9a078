import type { Actor, DocumentContext } from '../context.js';
import { type ArchivedItem, listArchiveRoots } from '../db/archived-documents.js';

/**
 * The documents of a workspace that were archived themselves (their subtrees went with them), for
 * the members who may see the workspace (VIEWER and up), most recently archived first: the place
 * where archived documents are found again and restored. Lists and the tree leave them out.
 */
export async function archivedDocuments(
  ctx: DocumentContext,
  reader: Pick<Actor, 'userId' | 'requestId'>,
  workspaceId: string,
  limit: number,
): Promise<readonly ArchivedItem[]> {
  await ctx.membership.requireRole(workspaceId, reader.userId, 'VIEWER', 'Workspace', reader.requestId);
  return listArchiveRoots(ctx.pool, workspaceId, limit);
}
