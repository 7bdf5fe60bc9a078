import type { Config } from '@wiki/config';
import type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { notFound } from '@wiki/http';
import { findMemberByUser, type MemberRow } from '../db/members.js';
import type { PreparedReads } from '../db/prepared-reads.js';
import { findWorkspace, type WorkspaceRow } from '../db/workspaces.js';
import type { WorkspaceSettings } from '../settings.js';

/**
 * What every command needs: the database, the configuration and the service's settings. A transaction of `pool` that
 * wrote events wakes the outbox relay when it commits (the service kit's pool).
 */
export interface Context {
  pool: DatabasePool;
  /** The hottest reads, as prepared statements on a pool of their own. */
  reads: PreparedReads;
  config: Config;
  /** Invitation links and lifetime (settings.ts). */
  settings: WorkspaceSettings;
}

/** The caller's membership, or 404: a non-member does not learn that the workspace exists. */
export async function requireMember(
  db: CommonQueryMethods,
  workspaceId: string,
  userId: string,
  lock = false,
): Promise<MemberRow> {
  const member = await findMemberByUser(db, workspaceId, userId, lock);
  if (!member) throw notFound('Workspace');
  return member;
}

/**
 * Locks the workspace row for the rest of the transaction, so changes to one workspace's members
 * and invitations happen one at a time (a demoted admin cannot act on the role they just lost),
 * then returns it with the caller's membership.
 */
export async function lockWorkspaceAsMember(
  tx: DatabaseTransactionConnection,
  workspaceId: string,
  userId: string,
): Promise<{ workspace: WorkspaceRow; member: MemberRow }> {
  const workspace = await findWorkspace(tx, workspaceId, true);
  if (!workspace) throw notFound('Workspace');
  return { workspace, member: await requireMember(tx, workspaceId, userId) };
}
