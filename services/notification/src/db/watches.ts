import { type CommonQueryMethods, sql, z } from '@wiki/db';

/** Document watches (migration 0004): explicit choices, automatic watching and the debounce state. */

export interface WatchKey {
  documentId: string;
  userId: string;
}

/** True when the user watches the document (no row, or an explicit unwatch, is false). */
export async function isWatching(db: CommonQueryMethods, { documentId, userId }: WatchKey): Promise<boolean> {
  const watching = await db.maybeOneFirst(sql.type(z.object({ watching: z.boolean() }))`
    SELECT watching FROM document_watches WHERE document_id = ${documentId} AND user_id = ${userId}`);
  return watching ?? false;
}

/** An explicit watch (true) or unwatch (false): it overrides whatever was there, automatic or not. */
export async function setWatching(
  db: CommonQueryMethods,
  key: WatchKey & { workspaceId: string },
  watching: boolean,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO document_watches (document_id, user_id, workspace_id, watching)
    VALUES (${key.documentId}, ${key.userId}, ${key.workspaceId}, ${watching})
    ON CONFLICT (document_id, user_id) DO UPDATE SET watching = EXCLUDED.watching, updated_at = now()`);
}

/**
 * Automatic watching: each user watches the document unless they have a row already (watching,
 * or an explicit unwatch, which is never overridden here).
 */
export async function watchAutomatically(
  db: CommonQueryMethods,
  documentId: string,
  workspaceId: string,
  userIds: readonly string[],
): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO document_watches (document_id, user_id, workspace_id, watching)
    SELECT ${documentId}, u, ${workspaceId}, true FROM unnest(${sql.array([...userIds].sort(), 'uuid')}) AS u
    ON CONFLICT (document_id, user_id) DO NOTHING`);
}

/**
 * The users who watch the document, but those listed (the edit's own authors), their rows locked
 * in id order: concurrent edits of one document then wait for each other instead of deadlocking.
 */
export function watchersBut(
  db: CommonQueryMethods,
  documentId: string,
  except: readonly string[],
): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM document_watches
    WHERE document_id = ${documentId} AND watching AND NOT (user_id = ANY(${sql.array(except, 'uuid')}))
    ORDER BY user_id FOR UPDATE`);
}

export interface EditOutcome {
  userId: string;
  /** True: this edit opens a new window (a new notification); false: it falls inside the last one. */
  opensWindow: boolean;
  /** The event that opened the watcher's current window (this edit's own id when opensWindow). */
  windowEventId: string;
}

/**
 * Records an edit of the document at `editAt` for these watchers and decides, per watcher and in
 * one statement, whether it opens a new debounce window: it does when they were never notified of
 * the document or their last notice is `debounceS` seconds or more before the edit. Row locks make
 * concurrent edits (two replicas) decide one after the other; an edit at or before the latest one
 * handled for a watcher (a replay, or an older event arriving late) is left out.
 */
export function recordEdit(
  db: CommonQueryMethods,
  edit: { documentId: string; eventId: string; editAt: string; debounceS: number },
  userIds: readonly string[],
): Promise<readonly EditOutcome[]> {
  const due = sql.fragment`(notified_at IS NULL OR notified_at <= ${edit.editAt}::timestamptz - make_interval(secs => ${edit.debounceS}))`;
  return db.any(sql.type(z.object({ userId: z.string(), opensWindow: z.boolean(), windowEventId: z.string() }))`
    UPDATE document_watches SET
      seen_edit_at = ${edit.editAt},
      notified_event_id = CASE WHEN ${due} THEN ${edit.eventId}::uuid ELSE notified_event_id END,
      notified_at = CASE WHEN ${due} THEN ${edit.editAt}::timestamptz ELSE notified_at END
    WHERE document_id = ${edit.documentId} AND user_id = ANY(${sql.array(userIds, 'uuid')}) AND watching
      AND (seen_edit_at IS NULL OR seen_edit_at < ${edit.editAt}::timestamptz)
    RETURNING user_id AS "userId", notified_event_id = ${edit.eventId}::uuid AS "opensWindow",
      notified_event_id AS "windowEventId"`);
}

/** Watches of documents that were deleted for good. */
export async function dropWatchesOfDocuments(db: CommonQueryMethods, documentIds: readonly string[]): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM document_watches WHERE document_id = ANY(${sql.array(documentIds, 'uuid')})`);
}

/** A removed member's watches in that workspace (explicit unwatches too: a new membership starts afresh). */
export async function dropWatchesOfMember(db: CommonQueryMethods, workspaceId: string, userId: string): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM document_watches WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`);
}

export async function dropWatchesOfWorkspace(db: CommonQueryMethods, workspaceId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM document_watches WHERE workspace_id = ${workspaceId}`);
}

/** One more edit on the DOCUMENT_UPDATED that opened the watcher's window, while it is unread. */
export async function countEditOn(db: CommonQueryMethods, userId: string, sourceKey: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE notifications
    SET metadata = jsonb_set(metadata, '{edits}', to_jsonb(coalesce((metadata->>'edits')::int, 1) + 1))
    WHERE user_id = ${userId} AND source_key = ${sourceKey} AND status = 'UNREAD'`);
}
