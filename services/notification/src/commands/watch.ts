import type { DatabasePool } from '@wiki/db';
import { notFound } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import { workspaceOfDocument } from '../db/document-workspaces.js';
import { isWatching, setWatching } from '../db/watches.js';

/** What the watch routes share: the database, the membership projection and the peers. */
export interface WatchContext {
  pool: DatabasePool;
  membership: MembershipAccess;
  peers: ServiceClient;
}

export interface WatchRequest {
  userId: string;
  documentId: string;
  requestId?: string;
}

/** GET: whether the caller watches the document. */
export async function watchState(ctx: WatchContext, r: WatchRequest) {
  await requireReader(ctx, r);
  return { watching: await isWatching(ctx.pool, r) };
}

/**
 * PUT (true) and DELETE (false): an explicit choice, idempotent. An unwatch is remembered, so that
 * automatic watching never undoes it; a watch after it watches again.
 */
export async function chooseWatching(ctx: WatchContext, r: WatchRequest, watching: boolean) {
  const workspaceId = await requireReader(ctx, r);
  await setWatching(ctx.pool, { documentId: r.documentId, userId: r.userId, workspaceId }, watching);
  return { watching };
}

/**
 * The document's workspace, when the caller may read the document: any member of its workspace
 * (VIEWER and up). A document nobody knows, or one of a workspace the caller is not a member of,
 * is the same 404 (ARCHITECTURE 3: existence is not leaked).
 */
async function requireReader(ctx: WatchContext, r: WatchRequest): Promise<string> {
  const workspaceId = await workspaceOfDocument(ctx.pool, ctx.peers, r.documentId, r.requestId);
  if (!workspaceId) throw notFound('Document');
  await ctx.membership.requireRole(workspaceId, r.userId, 'VIEWER', 'Document', r.requestId);
  return workspaceId;
}
