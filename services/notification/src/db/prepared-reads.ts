import { type ClosableReads, isoTimestampSql, preparedReads } from '@wiki/db';
import type { ListFilter, NotificationRow, SortDirection, SortField } from './notifications.js';

/**
 * The notification list and the unread count on a plain node-postgres pool with named prepared
 * statements: Postgres parses and plans each once per connection instead of on every request,
 * and the rows skip slonik's per-row asynchronous zod check. They answer what their slonik twins
 * (db/notifications.ts listNotifications and countUnread) answer, which the tests check. The list
 * is ONE statement (the page and the total in one round trip, where the twin makes two), and its
 * page arrives as one JSON array built by Postgres: one native JSON.parse instead of node-postgres
 * parsing twenty columns of every row. Timestamps are formatted by Postgres as the ISO text the
 * shared pool's parser produces. Everything else stays on the slonik pool.
 */
export interface PreparedReads extends ClosableReads {
  /** The user's visible notifications of one page, and how many there are in all (pages past the end: none, and the total). */
  listNotifications(f: ListFilter): Promise<{ rows: NotificationRow[]; total: number }>;
  countUnread(userId: string): Promise<number>;
}

const iso = isoTimestampSql;

/** Same rule as db/notifications.ts `visible`: not dismissed, not expired. */
const VISIBLE = `status <> 'DISMISSED' AND (expires_at IS NULL OR expires_at > now())`;

/** $2 (status) and $3 (type) are null when the request does not filter on them. */
const FILTERED = `user_id = $1 AND ${VISIBLE} AND ($2::text IS NULL OR status = $2::text)
  AND ($3::text IS NULL OR type = $3::text)`;

/** The keys of NotificationRow, in its order. */
const ROW_JSON = `json_build_object(
  'id', n.id, 'userId', n.user_id, 'type', n.type, 'status', n.status, 'title', n.title, 'message', n.message,
  'actionable', n.actionable, 'actorId', n.actor_id, 'actorName', n.actor_name, 'actorAvatar', n.actor_avatar,
  'workspaceId', n.workspace_id, 'workspaceName', n.workspace_name, 'documentId', n.document_id,
  'documentTitle', n.document_title, 'invitationId', n.invitation_id, 'commentThreadId', n.comment_thread_id,
  'metadata', n.metadata, 'createdAt', ${iso('n.created_at')}, 'readAt', ${iso('n.read_at')},
  'expiresAt', ${iso('n.expires_at')})`;

/**
 * One statement per sort (an ORDER BY cannot take its column or direction as a parameter). The
 * order is the twin's: unread rows have no readAt and come last either way, id breaks ties. The
 * aggregate orders by the raw columns again, as a subquery's order is not kept by json_agg for
 * sure, and the formatted timestamps (cut to milliseconds) could tie where the columns do not.
 * The total is a subquery of its own, so a page past the end still answers it.
 */
function listStatement(field: SortField, direction: SortDirection) {
  const column = field === 'readAt' ? 'read_at' : 'created_at';
  // created_at is never null, so NULLS LAST changes nothing there, but left out it lets the
  // (user_id, created_at DESC) index give the page in order either way (no sort of all the rows).
  const nulls = field === 'readAt' ? ' NULLS LAST' : '';
  const order = (of = '') => `${of}${column} ${direction}${nulls}, ${of}id ${direction}`;
  return {
    // The name is per connection; change it whenever the text changes.
    name: `notification_list_${column}_${direction.toLowerCase()}_v2`,
    text: `
      SELECT (SELECT count(*)::int FROM notifications WHERE ${FILTERED}) AS total,
        (SELECT coalesce(json_agg(${ROW_JSON} ORDER BY ${order('n.')}), '[]'::json)
         FROM (SELECT * FROM notifications WHERE ${FILTERED} ORDER BY ${order()} LIMIT $4 OFFSET $5) n) AS rows`,
  };
}

const LIST = {
  createdAt: { ASC: listStatement('createdAt', 'ASC'), DESC: listStatement('createdAt', 'DESC') },
  readAt: { ASC: listStatement('readAt', 'ASC'), DESC: listStatement('readAt', 'DESC') },
} as const;

const COUNT_UNREAD = {
  name: 'notification_count_unread_v1',
  text: `SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND status = 'UNREAD' AND ${VISIBLE}`,
};

export const createPreparedReads = preparedReads<PreparedReads>((run) => ({
  async listNotifications(f) {
    const [page] = await run<{ total: number; rows: NotificationRow[] }>(LIST[f.sort.field][f.sort.direction], [
      f.userId,
      f.status ?? null,
      f.type ?? null,
      f.size,
      f.page * f.size,
    ]);
    // Always one row: the aggregates answer even when nothing matches.
    const { total, rows } = page as { total: number; rows: NotificationRow[] };
    return { rows, total };
  },
  async countUnread(userId) {
    const [row] = await run<{ n: number }>(COUNT_UNREAD, [userId]);
    return row?.n ?? 0;
  },
}));
