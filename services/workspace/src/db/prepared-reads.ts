import { type ClosableReads, isoTimestampSql, preparedReads } from '@wiki/db';
import type { MemberView } from './members.js';
import { type MeRow, type PreferenceRow, splitMeRow } from './preferences.js';
import type { UserRow } from './users.js';
import type { WorkspaceRow } from './workspaces.js';

/**
 * The two reads every page load makes (GET /users/me and GET /workspaces), and the member list, on a plain node-postgres
 * pool with named prepared statements: Postgres parses and plans each once per connection instead
 * of on every request, and the rows skip slonik's per-row asynchronous zod check. They answer the
 * same rows as their slonik twins (db/preferences.ts findUserWithPreferences, db/workspaces.ts
 * listWorkspacesOfUser, db/members.ts findMemberByUser and listMembers), which the tests check: timestamps are formatted by Postgres as the ISO
 * text the shared pool's parser produces, and every other column's pg default parser already gives
 * the row's type (uuid and text as strings, boolean, int4 as a number). Everything else stays on the
 * slonik pool.
 */
export interface PreparedReads extends ClosableReads {
  /** The user and their preferences (the defaults when never saved); null when no such user. */
  findMe(userId: string): Promise<{ user: UserRow; preference: PreferenceRow } | null>;
  /** The workspaces the user is a member of, the default one first, then oldest first. */
  listWorkspacesOfUser(userId: string): Promise<WorkspaceRow[]>;
  /**
   * The members of the workspace as GET /workspaces/{id}/members lists them (owner first, then by
   * role level, then by name), or null when the caller is not one of them (or no such workspace).
   */
  listMembersAs(workspaceId: string, callerId: string): Promise<MemberView[] | null>;
}

const iso = isoTimestampSql;

const FIND_ME = {
  // The name is per connection; change it whenever the text changes.
  name: 'workspace_find_me_v2',
  text: `
    SELECT u.id, u.idp_uid AS "idpUid", u.email, u.email_verified AS "emailVerified", u.name,
      u.avatar_url AS "avatarUrl", u.status, ${iso('u.last_login_at')} AS "lastLoginAt",
      ${iso('u.created_at')} AS "createdAt",
      p.user_id IS NOT NULL AS "hasPreferences",
      p.last_document_id AS "prefLastDocumentId", p.last_workspace_id AS "prefLastWorkspaceId", p.theme AS "prefTheme",
      p.sidebar_collapsed AS "prefSidebarCollapsed", p.locale AS "prefLocale",
      p.notifications_enabled AS "prefNotificationsEnabled", p.email_notifications AS "prefEmailNotifications"
    FROM users u LEFT JOIN user_preferences p ON p.user_id = u.id
    WHERE u.id = $1`,
};

const LIST_WORKSPACES = {
  name: 'workspace_list_of_user_v1',
  text: `
    SELECT w.id, w.name, w.description, w.icon, w.color, w.owner_id AS "ownerId", w.is_default AS "isDefault",
      w.is_archived AS "isArchived", w.document_count AS "documentCount", ${iso('w.created_at')} AS "createdAt",
      ${iso('w.updated_at')} AS "updatedAt"
    FROM workspaces w
    JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $1
    ORDER BY w.is_default DESC, w.created_at, w.id`,
};

/**
 * The membership check and the list in one statement: a member sees at least their own row, so no
 * row means the caller is not a member. Same columns and order as db/members.ts listMembers.
 */
const LIST_MEMBERS = {
  name: 'workspace_list_members_v1',
  text: `
    SELECT m.id, m.workspace_id AS "workspaceId", m.user_id AS "userId", m.role, m.status,
      m.invited_by AS "invitedBy", ${iso('m.invited_at')} AS "invitedAt", ${iso('m.accepted_at')} AS "acceptedAt",
      ${iso('m.created_at')} AS "createdAt",
      u.name AS "userName", u.email AS "userEmail", u.avatar_url AS "userAvatar",
      i.name AS "inviterName", i.avatar_url AS "inviterAvatar"
    FROM workspace_members m JOIN users u ON u.id = m.user_id LEFT JOIN users i ON i.id = m.invited_by
    WHERE m.workspace_id = $1
      AND EXISTS (SELECT 1 FROM workspace_members c WHERE c.workspace_id = $1 AND c.user_id = $2)
    ORDER BY array_position(ARRAY['OWNER','ADMIN','EDITOR','COMMENTER','VIEWER'], m.role), lower(u.name), m.id`,
};

export const createPreparedReads = preparedReads<PreparedReads>((run) => ({
  async findMe(userId) {
    const [row] = await run<MeRow>(FIND_ME, [userId]);
    return row ? splitMeRow(row) : null;
  },
  listWorkspacesOfUser: (userId) => run<WorkspaceRow>(LIST_WORKSPACES, [userId]),
  async listMembersAs(workspaceId, callerId) {
    const rows = await run<MemberView>(LIST_MEMBERS, [workspaceId, callerId]);
    return rows.length > 0 ? rows : null;
  },
}));
