import type { Role } from '@wiki/auth';
import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { trustedEmail } from './users.js';

const role = z.enum(['OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER']);

export const MemberRow = z.object({
  id: z.string(),
  workspaceId: z.string(),
  userId: z.string(),
  role,
  status: z.string(),
  invitedBy: z.string().nullable(),
  invitedAt: z.string().nullable(),
  acceptedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type MemberRow = z.infer<typeof MemberRow>;

/** A member with the user and inviter details the API shows. */
export const MemberView = MemberRow.extend({
  userName: z.string(),
  userEmail: z.string(),
  userAvatar: z.string().nullable(),
  inviterName: z.string().nullable(),
  inviterAvatar: z.string().nullable(),
});
export type MemberView = z.infer<typeof MemberView>;

const columns = sql.fragment`
  m.id, m.workspace_id AS "workspaceId", m.user_id AS "userId", m.role, m.status,
  m.invited_by AS "invitedBy", m.invited_at AS "invitedAt", m.accepted_at AS "acceptedAt",
  m.created_at AS "createdAt"`;

const viewColumns = sql.fragment`
  ${columns}, u.name AS "userName", u.email AS "userEmail", u.avatar_url AS "userAvatar",
  i.name AS "inviterName", i.avatar_url AS "inviterAvatar"`;

const viewFrom = sql.fragment`
  workspace_members m JOIN users u ON u.id = m.user_id LEFT JOIN users i ON i.id = m.invited_by`;

export interface NewMember {
  workspaceId: string;
  userId: string;
  role: Role;
  invitedBy?: string | null;
  invitedAt?: string | null;
}

export function insertMember(db: CommonQueryMethods, member: NewMember): Promise<MemberRow> {
  return db.one(sql.type(MemberRow)`
    INSERT INTO workspace_members AS m (workspace_id, user_id, role, invited_by, invited_at, accepted_at)
    VALUES (${member.workspaceId}, ${member.userId}, ${member.role}, ${member.invitedBy ?? null},
            ${member.invitedAt ?? null}, now())
    RETURNING ${columns}`);
}

export function findMemberByUser(
  db: CommonQueryMethods,
  workspaceId: string,
  userId: string,
  lock = false,
): Promise<MemberRow | null> {
  return db.maybeOne(sql.type(MemberRow)`
    SELECT ${columns} FROM workspace_members m
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** A member with its workspace's archived flag: what other services' projections read through to. */
export const MembershipState = MemberRow.extend({ workspaceArchived: z.boolean() });
export type MembershipState = z.infer<typeof MembershipState>;

export function findMembershipState(
  db: CommonQueryMethods,
  workspaceId: string,
  userId: string,
): Promise<MembershipState | null> {
  return db.maybeOne(sql.type(MembershipState)`
    SELECT ${columns}, w.is_archived AS "workspaceArchived"
    FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId}`);
}

export function findMemberById(
  db: CommonQueryMethods,
  workspaceId: string,
  memberId: string,
  lock = false,
): Promise<MemberRow | null> {
  return db.maybeOne(sql.type(MemberRow)`
    SELECT ${columns} FROM workspace_members m
    WHERE m.workspace_id = ${workspaceId} AND m.id = ${memberId} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

export function findMemberView(db: CommonQueryMethods, memberId: string): Promise<MemberView> {
  return db.one(sql.type(MemberView)`SELECT ${viewColumns} FROM ${viewFrom} WHERE m.id = ${memberId}`);
}

/** Owner first, then by role level, then by name. */
export function listMembers(db: CommonQueryMethods, workspaceId: string): Promise<readonly MemberView[]> {
  return db.any(sql.type(MemberView)`
    SELECT ${viewColumns} FROM ${viewFrom}
    WHERE m.workspace_id = ${workspaceId}
    ORDER BY array_position(ARRAY['OWNER','ADMIN','EDITOR','COMMENTER','VIEWER'], m.role), lower(u.name), m.id`);
}

/** Case-insensitive substring match on name or email; `%`, `_` and `\` in `q` match literally. */
export function searchMembers(
  db: CommonQueryMethods,
  workspaceId: string,
  q: string,
  limit: number,
): Promise<readonly MemberView[]> {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db.any(sql.type(MemberView)`
    SELECT ${viewColumns} FROM ${viewFrom}
    WHERE m.workspace_id = ${workspaceId} AND (u.name ILIKE ${pattern} OR u.email ILIKE ${pattern})
    ORDER BY lower(u.name), m.id
    LIMIT ${limit}`);
}

/** The member known by `email`: only a user who holds it with trust, never an unverified label. */
export function findMemberByEmail(
  db: CommonQueryMethods,
  workspaceId: string,
  email: string,
): Promise<MemberRow | null> {
  return db.maybeOne(sql.type(MemberRow)`
    SELECT ${columns} FROM workspace_members m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} AND lower(u.email) = lower(${email}) AND ${trustedEmail}
      AND m.status = 'ACTIVE'`);
}

export function setMemberRole(db: CommonQueryMethods, memberId: string, newRole: Role): Promise<MemberRow> {
  return db.one(sql.type(MemberRow)`
    UPDATE workspace_members m SET role = ${newRole} WHERE m.id = ${memberId} RETURNING ${columns}`);
}

export async function deleteMember(db: CommonQueryMethods, memberId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM workspace_members WHERE id = ${memberId}`);
}
