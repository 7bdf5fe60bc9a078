import { randomUUID } from 'node:crypto';
import { type CommonQueryMethods, sql, z } from '@wiki/db';
import type { NewNotification, NotificationStatus, NotificationType } from '../domain/notification.js';
import { planNotificationMail } from '../mail/plan.js';

export const NotificationRow = z.object({
  id: z.string(),
  userId: z.string(),
  type: z.string(),
  status: z.string(),
  title: z.string(),
  message: z.string(),
  actionable: z.boolean(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  actorAvatar: z.string().nullable(),
  workspaceId: z.string().nullable(),
  workspaceName: z.string().nullable(),
  documentId: z.string().nullable(),
  documentTitle: z.string().nullable(),
  invitationId: z.string().nullable(),
  commentThreadId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  readAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export type NotificationRow = z.infer<typeof NotificationRow>;

/** Every column of a NotificationRow (also read by db/mail.ts). */
export const notificationColumns = sql.fragment`
  id, user_id AS "userId", type, status, title, message, actionable, actor_id AS "actorId",
  actor_name AS "actorName", actor_avatar AS "actorAvatar", workspace_id AS "workspaceId",
  workspace_name AS "workspaceName", document_id AS "documentId", document_title AS "documentTitle",
  invitation_id AS "invitationId", comment_thread_id AS "commentThreadId", metadata,
  created_at AS "createdAt", read_at AS "readAt", expires_at AS "expiresAt"`;

/** What lists and counts show: not dismissed, not expired. */
const visible = sql.fragment`status <> 'DISMISSED' AND (expires_at IS NULL OR expires_at > now())`;

export interface StoredNames {
  actorName: string | null;
  actorAvatar: string | null;
  workspaceName: string | null;
  documentTitle: string | null;
}

/**
 * Stores one notification unless its recipient has one from the same source already (a
 * redelivered or replayed event). True when a row was made.
 */
export async function insertNotification(
  db: CommonQueryMethods,
  n: NewNotification,
  names: StoredNames,
): Promise<boolean> {
  const made = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    WITH next AS (${nextSeq(sql.fragment`SELECT ${n.userId}::uuid AS user_id`)})
    INSERT INTO notifications (id, user_id, type, title, message, actionable, actor_id, actor_name, actor_avatar,
      workspace_id, workspace_name, document_id, document_title, invitation_id, comment_thread_id, metadata,
      expires_at, source_key, seq)
    SELECT ${randomUUID()}, ${n.userId}, ${n.type}, ${n.title}, ${n.message}, ${n.actionable ?? false},
      ${n.actorId}, ${names.actorName}, ${names.actorAvatar}, ${n.workspaceId}, ${names.workspaceName},
      ${n.documentId ?? null}, ${names.documentTitle}, ${n.invitationId ?? null}, ${n.commentThreadId ?? null},
      ${sql.jsonb(JSON.parse(JSON.stringify(n.metadata ?? {})))}, ${n.expiresAt ?? null}, ${n.sourceKey}, next.last_seq
    FROM next
    ON CONFLICT (user_id, source_key) DO NOTHING
    RETURNING id`);
  if (made === null) return false;
  // The one place new notifications are stored: each type is e-mailed by preference from here.
  await planNotificationMail(db, { id: made.id, userId: n.userId, type: n.type });
  return true;
}

/**
 * The next stream number of each user `users` selects (a column `user_id`), taking the row lock
 * of their counter until the transaction ends (see migration 0003). A redelivered event that then
 * makes nothing leaves a gap, which readers do not mind.
 */
function nextSeq(users: ReturnType<typeof sql.fragment>) {
  return sql.fragment`
    INSERT INTO notification_streams (user_id, last_seq) SELECT user_id, 1 FROM (${users}) AS u
    ON CONFLICT (user_id) DO UPDATE SET last_seq = notification_streams.last_seq + 1
    RETURNING user_id, last_seq`;
}

export type SortField = 'createdAt' | 'readAt';
export type SortDirection = 'ASC' | 'DESC';

export interface ListFilter {
  userId: string;
  status?: NotificationStatus;
  type?: NotificationType;
  page: number;
  size: number;
  sort: { field: SortField; direction: SortDirection };
}

/**
 * The list as two slonik queries: the routes read it from db/prepared-reads.ts in one prepared
 * statement, and the tests hold that one to this reference.
 */
export async function listNotifications(
  db: CommonQueryMethods,
  f: ListFilter,
): Promise<{ rows: readonly NotificationRow[]; total: number }> {
  const where = sql.fragment`user_id = ${f.userId} AND ${visible}
    ${f.status ? sql.fragment`AND status = ${f.status}` : sql.fragment``}
    ${f.type ? sql.fragment`AND type = ${f.type}` : sql.fragment``}`;
  const column = sql.identifier([f.sort.field === 'readAt' ? 'read_at' : 'created_at']);
  // Unread rows have no readAt: they come last either way; id breaks ties so pages never overlap.
  const order =
    f.sort.direction === 'ASC'
      ? sql.fragment`${column} ASC NULLS LAST, id ASC`
      : sql.fragment`${column} DESC NULLS LAST, id DESC`;
  const total = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM notifications WHERE ${where}`);
  const rows = await db.any(sql.type(NotificationRow)`
    SELECT ${notificationColumns} FROM notifications WHERE ${where}
    ORDER BY ${order} LIMIT ${f.size} OFFSET ${f.page * f.size}`);
  return { rows, total };
}

/** For the streams; GET /notifications/count reads its prepared twin (db/prepared-reads.ts). */
export function countUnread(db: CommonQueryMethods, userId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM notifications WHERE user_id = ${userId} AND status = 'UNREAD' AND ${visible}`);
}

/** UNREAD → READ; readAt is set the first time only. Other states are left as they are. */
export function markRead(db: CommonQueryMethods, id: string, userId: string): Promise<NotificationRow | null> {
  return db.maybeOne(sql.type(NotificationRow)`
    UPDATE notifications
    SET status = CASE WHEN status = 'UNREAD' THEN 'READ' ELSE status END, read_at = coalesce(read_at, now())
    WHERE id = ${id} AND user_id = ${userId} AND ${visible}
    RETURNING ${notificationColumns}`);
}

/** → ACTIONED (from UNREAD or READ); it counts as read too, so readAt is set if it was not. */
export function markActioned(db: CommonQueryMethods, id: string, userId: string): Promise<NotificationRow | null> {
  return db.maybeOne(sql.type(NotificationRow)`
    UPDATE notifications SET status = 'ACTIONED', read_at = coalesce(read_at, now())
    WHERE id = ${id} AND user_id = ${userId} AND ${visible}
    RETURNING ${notificationColumns}`);
}

export async function markAllRead(db: CommonQueryMethods, userId: string): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE notifications SET status = 'READ', read_at = coalesce(read_at, now())
    WHERE user_id = ${userId} AND status = 'UNREAD' AND ${visible}`);
  return result.rowCount;
}

export async function dismiss(db: CommonQueryMethods, id: string, userId: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE notifications SET status = 'DISMISSED' WHERE id = ${id} AND user_id = ${userId} AND ${visible}`);
  return result.rowCount > 0;
}

export async function remove(db: CommonQueryMethods, id: string, userId: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    DELETE FROM notifications WHERE id = ${id} AND user_id = ${userId} AND ${visible}`);
  return result.rowCount > 0;
}

/*
 * The writes below answer the users whose notifications they changed (each once), so that their
 * open streams can be told (src/live).
 */

const UserIds = z.object({ user_id: z.string() });

/** Invitation answered: its notification is ACTIONED (kept, readAt set) for an accept or a decline. */
export function actionInvitation(db: CommonQueryMethods, invitationId: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(UserIds)`
    WITH changed AS (
      UPDATE notifications SET status = 'ACTIONED', read_at = coalesce(read_at, now()), actionable = false
      WHERE invitation_id = ${invitationId} AND type = 'WORKSPACE_INVITATION' AND status <> 'DISMISSED'
      RETURNING user_id)
    SELECT DISTINCT user_id FROM changed`);
}

/** Invitation cancelled: nothing is left to act on, so its notification goes. */
export function removeInvitation(db: CommonQueryMethods, invitationId: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(UserIds)`
    WITH gone AS (
      DELETE FROM notifications WHERE invitation_id = ${invitationId} AND type = 'WORKSPACE_INVITATION'
      RETURNING user_id)
    SELECT DISTINCT user_id FROM gone`);
}

/**
 * Invitation resent: its notification expires with the new date and is unread again, with a new
 * stream number, so that open streams show it as new.
 */
export function refreshInvitation(
  db: CommonQueryMethods,
  invitationId: string,
  expiresAt: string,
): Promise<readonly string[]> {
  const of = sql.fragment`invitation_id = ${invitationId} AND type = 'WORKSPACE_INVITATION'`;
  return db.anyFirst(sql.type(UserIds)`
    WITH next AS (${nextSeq(sql.fragment`SELECT DISTINCT user_id FROM notifications WHERE ${of}`)})
    UPDATE notifications n
    SET expires_at = ${expiresAt}, status = 'UNREAD', read_at = NULL, actionable = true, seq = next.last_seq
    FROM next WHERE ${of} AND n.user_id = next.user_id
    RETURNING n.user_id`);
}

/** Notifications about documents that were deleted for good. */
export function deleteOfDocuments(db: CommonQueryMethods, documentIds: readonly string[]): Promise<readonly string[]> {
  return db.anyFirst(sql.type(UserIds)`
    WITH gone AS (
      DELETE FROM notifications WHERE document_id = ANY(${sql.array(documentIds, 'uuid')}) RETURNING user_id)
    SELECT DISTINCT user_id FROM gone`);
}

/** Notifications about a workspace that was deleted. */
export function deleteOfWorkspace(db: CommonQueryMethods, workspaceId: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(UserIds)`
    WITH gone AS (DELETE FROM notifications WHERE workspace_id = ${workspaceId} RETURNING user_id)
    SELECT DISTINCT user_id FROM gone`);
}

/** Deletes up to `limit` expired notifications; how many went and whose they were. */
export async function deleteExpired(
  db: CommonQueryMethods,
  limit: number,
): Promise<{ deleted: number; userIds: readonly string[] }> {
  const rows = await db.any(sql.type(z.object({ user_id: z.string(), n: z.number() }))`
    WITH gone AS (
      DELETE FROM notifications WHERE id IN (
        SELECT id FROM notifications WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit})
      RETURNING user_id)
    SELECT user_id, count(*)::int AS n FROM gone GROUP BY user_id`);
  return { deleted: rows.reduce((sum, r) => sum + r.n, 0), userIds: rows.map((r) => r.user_id) };
}

/** Where a user's stream starts when the client names no last event: their latest number. */
export async function lastSeqOf(db: CommonQueryMethods, userId: string): Promise<number> {
  const seq = await db.maybeOneFirst(sql.type(z.object({ s: z.coerce.number() }))`
    SELECT last_seq::text AS s FROM notification_streams WHERE user_id = ${userId}`);
  return seq ?? 0;
}

export const StreamRow = NotificationRow.extend({ seq: z.coerce.number() });
export type StreamRow = z.infer<typeof StreamRow>;

/** A catch-up row: the unread count beside one notification of the page (parsed as a StreamRow), or beside nothing. */
const CatchUpRow = z.object({ unread: z.number(), id: z.string().nullable() }).passthrough();

/**
 * The user's visible notifications numbered after `afterSeq`, oldest first, `limit` at most, and
 * their unread count, read in ONE statement and so from one snapshot: a notification on the page
 * is always in the count beside it while it is unread. (Read side by side on two connections, the
 * count could predate a notification the page already held: the stream sent it without ever
 * counting it, and a read of it then left the count where it was, so no count event followed.)
 * Ordered by the number, never its text: "100" sorts before "99", so a page across such a step
 * would end on a lower number and the next look would send the higher ones again.
 */
export async function catchUpPage(
  db: CommonQueryMethods,
  userId: string,
  afterSeq: number,
  limit: number,
): Promise<{ rows: StreamRow[]; unread: number }> {
  const result = await db.any(sql.type(CatchUpRow)`
    WITH page AS (
      SELECT ${notificationColumns}, seq FROM notifications
      WHERE user_id = ${userId} AND seq > ${afterSeq} AND ${visible}
      ORDER BY notifications.seq LIMIT ${limit}
    ), unread AS (
      SELECT count(*)::int AS unread FROM notifications WHERE user_id = ${userId} AND status = 'UNREAD' AND ${visible}
    )
    SELECT unread.unread, page.*
    FROM unread LEFT JOIN page ON true
    ORDER BY page.seq`);
  return {
    unread: result[0]?.unread ?? 0,
    rows: result.filter((row) => row.id !== null).map((row) => StreamRow.parse(row)),
  };
}
