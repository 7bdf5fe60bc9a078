import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { fetchWorkspaceUser, type ServiceClient } from '@wiki/service-client';

/**
 * Look-ups a producer makes inside its consumer's transaction (slonik refuses the pool there):
 * the projections through `tx`, then the workspace service when they hold no row. Nothing is
 * written back: the projections' own consumers fill them.
 */

const member = z.object({ role: z.string().nullable() });
const remoteMember = z.object({ role: z.string(), workspaceArchived: z.boolean().optional() });

/** True when the user is a member of an open workspace. */
export async function isMember(
  tx: CommonQueryMethods,
  peers: ServiceClient,
  workspaceId: string,
  userId: string,
): Promise<boolean> {
  const closed = await tx.maybeOneFirst(sql.type(z.object({ closed: z.boolean() }))`
    SELECT is_archived OR is_deleted AS closed FROM workspace_access_projection WHERE workspace_id = ${workspaceId}`);
  if (closed) return false;
  const row = await tx.maybeOne(sql.type(member)`
    SELECT role FROM membership_projection WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`);
  // A row without a role is a removal the projection has seen.
  if (row) return row.role !== null;
  const path = `/internal/workspaces/${encodeURIComponent(workspaceId)}/members/${encodeURIComponent(userId)}`;
  const remote = await peers.get('workspace', path, { parse: (body) => remoteMember.parse(body) });
  return remote !== null && !remote.workspaceArchived;
}

const person = z.object({ name: z.string(), avatarUrl: z.string().nullable() });

/** The actor's name and avatar now (null when nobody knows them). */
export async function actorOf(
  tx: CommonQueryMethods,
  peers: ServiceClient,
  userId: string,
): Promise<{ name: string; avatarUrl: string | null } | null> {
  const row = await tx.maybeOne(sql.type(person)`
    SELECT name, avatar_url AS "avatarUrl" FROM projection_users WHERE id = ${userId}`);
  if (row?.name) return row;
  const remote = await fetchWorkspaceUser(peers, userId);
  return remote ? { name: remote.name, avatarUrl: remote.avatarUrl } : null;
}

const remoteDocument = z.object({ title: z.string() });

/**
 * A document's title from the projection, else from the document service (a document whose
 * events this service has not seen, e.g. older than the stream). Null when neither knows it.
 */
export async function titleOf(
  tx: CommonQueryMethods,
  peers: ServiceClient,
  documentId: string | null,
): Promise<string | null> {
  if (!documentId) return null;
  const known = await tx.maybeOneFirst(sql.type(z.object({ title: z.string() }))`
    SELECT title FROM document_titles WHERE id = ${documentId}`);
  if (known !== null) return known;
  const path = `/internal/documents/${encodeURIComponent(documentId)}`;
  const remote = await peers.get('document', path, { parse: (body) => remoteDocument.parse(body) });
  return remote?.title ?? null;
}
