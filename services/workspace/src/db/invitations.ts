import type { Role } from '@wiki/auth';
import { type CommonQueryMethods, sql, z } from '@wiki/db';

/** An invitation with the workspace and inviter details the API shows. */
export const InvitationView = z.object({
  id: z.string(),
  workspaceId: z.string(),
  email: z.string(),
  role: z.enum(['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER']),
  status: z.enum(['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED']),
  token: z.string(),
  message: z.string().nullable(),
  invitedBy: z.string().nullable(),
  invitedAt: z.string(),
  expiresAt: z.string(),
  workspaceName: z.string(),
  workspaceIcon: z.string().nullable(),
  inviterName: z.string().nullable(),
  inviterAvatar: z.string().nullable(),
});
export type InvitationView = z.infer<typeof InvitationView>;

const columns = sql.fragment`
  inv.id, inv.workspace_id AS "workspaceId", inv.email, inv.role, inv.status, inv.token, inv.message,
  inv.invited_by AS "invitedBy", inv.created_at AS "invitedAt", inv.expires_at AS "expiresAt",
  w.name AS "workspaceName", w.icon AS "workspaceIcon", u.name AS "inviterName", u.avatar_url AS "inviterAvatar"`;

const from = sql.fragment`
  invitations inv JOIN workspaces w ON w.id = inv.workspace_id LEFT JOIN users u ON u.id = inv.invited_by`;

const IdRow = z.object({ id: z.string(), inserted: z.boolean() });

/**
 * Creates the PENDING invitation of `email` to the workspace, or refreshes the one that is
 * already open (new role, message, inviter and expiry; same token). Stale PENDING rows past
 * their expiry are marked EXPIRED first so they do not block a fresh one.
 */
export async function upsertPendingInvitation(
  db: CommonQueryMethods,
  inv: {
    workspaceId: string;
    email: string;
    role: Role;
    message: string | null;
    invitedBy: string;
    token: string;
    expiresAt: Date;
  },
): Promise<{ id: string; inserted: boolean }> {
  await expireStale(db, sql.fragment`workspace_id = ${inv.workspaceId} AND lower(email) = lower(${inv.email})`);
  return db.one(sql.type(IdRow)`
    INSERT INTO invitations (workspace_id, email, role, message, invited_by, token, expires_at)
    VALUES (${inv.workspaceId}, ${inv.email}, ${inv.role}, ${inv.message}, ${inv.invitedBy}, ${inv.token},
            ${inv.expiresAt.toISOString()})
    ON CONFLICT (workspace_id, (lower(email))) WHERE status = 'PENDING' DO UPDATE SET
      role = EXCLUDED.role, message = EXCLUDED.message, invited_by = EXCLUDED.invited_by,
      expires_at = EXCLUDED.expires_at, updated_at = now()
    RETURNING id, (xmax = 0) AS inserted`);
}

/** Lazily turns PENDING invitations past their expiry into EXPIRED ones. */
export async function expireStale(db: CommonQueryMethods, where: ReturnType<typeof sql.fragment>): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE invitations SET status = 'EXPIRED', updated_at = now()
    WHERE status = 'PENDING' AND expires_at <= now() AND ${where}`);
}

export function findInvitation(db: CommonQueryMethods, id: string): Promise<InvitationView> {
  return db.one(sql.type(InvitationView)`SELECT ${columns} FROM ${from} WHERE inv.id = ${id}`);
}

export function findInvitationById(db: CommonQueryMethods, id: string): Promise<InvitationView | null> {
  return db.maybeOne(sql.type(InvitationView)`SELECT ${columns} FROM ${from} WHERE inv.id = ${id}`);
}

export function findInvitationInWorkspace(
  db: CommonQueryMethods,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<InvitationView | null> {
  return db.maybeOne(sql.type(InvitationView)`
    SELECT ${columns} FROM ${from} WHERE inv.id = ${id} AND inv.workspace_id = ${workspaceId}
    ${lock ? sql.fragment`FOR UPDATE OF inv` : sql.fragment``}`);
}

export function findInvitationByToken(
  db: CommonQueryMethods,
  token: string,
  lock = false,
): Promise<InvitationView | null> {
  return db.maybeOne(sql.type(InvitationView)`
    SELECT ${columns} FROM ${from} WHERE inv.token = ${token} ${lock ? sql.fragment`FOR UPDATE OF inv` : sql.fragment``}`);
}

/** Open invitations of a workspace, newest first. */
export async function listPendingOfWorkspace(
  db: CommonQueryMethods,
  workspaceId: string,
): Promise<readonly InvitationView[]> {
  await expireStale(db, sql.fragment`workspace_id = ${workspaceId}`);
  return db.any(sql.type(InvitationView)`
    SELECT ${columns} FROM ${from}
    WHERE inv.workspace_id = ${workspaceId} AND inv.status = 'PENDING' AND inv.expires_at > now()
    ORDER BY inv.created_at DESC, inv.id`);
}

/** Open invitations sent to an address, newest first. */
export async function listPendingForEmail(db: CommonQueryMethods, email: string): Promise<readonly InvitationView[]> {
  await expireStale(db, sql.fragment`lower(email) = lower(${email})`);
  return db.any(sql.type(InvitationView)`
    SELECT ${columns} FROM ${from}
    WHERE lower(inv.email) = lower(${email}) AND inv.status = 'PENDING' AND inv.expires_at > now()
    ORDER BY inv.created_at DESC, inv.id`);
}

export async function setInvitationStatus(
  db: CommonQueryMethods,
  id: string,
  status: 'ACCEPTED' | 'DECLINED' | 'CANCELLED' | 'EXPIRED',
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE invitations SET status = ${status}, updated_at = now(),
      responded_at = CASE WHEN ${status} IN ('ACCEPTED', 'DECLINED') THEN now() ELSE responded_at END
    WHERE id = ${id}`);
}

/** Resend: open again until `expiresAt`, keeping the token. */
export async function reopenInvitation(db: CommonQueryMethods, id: string, expiresAt: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE invitations SET status = 'PENDING', expires_at = ${expiresAt.toISOString()}, updated_at = now()
    WHERE id = ${id}`);
}

/** The PENDING invitations `inviterId` sent to a workspace, locked (cancelling the left-over ones). */
export function listPendingSentBy(
  db: CommonQueryMethods,
  workspaceId: string,
  inviterId: string,
): Promise<readonly InvitationView[]> {
  return db.any(sql.type(InvitationView)`
    SELECT ${columns} FROM ${from}
    WHERE inv.workspace_id = ${workspaceId} AND inv.invited_by = ${inviterId} AND inv.status = 'PENDING'
    ORDER BY inv.created_at, inv.id
    FOR UPDATE OF inv`);
}
