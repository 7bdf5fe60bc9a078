import type { DatabaseTransactionConnection } from '@wiki/db';
import type { EventFor } from '@wiki/events';
import type { ServiceClient } from '@wiki/service-client';
import { workspaceName } from '../db/names.js';
import { insertNotification } from '../db/notifications.js';
import { actorOf, isMember } from '../db/people.js';
import { wantsNotifications } from '../db/preferences.js';
import {
  countEditOn,
  dropWatchesOfDocuments,
  dropWatchesOfMember,
  dropWatchesOfWorkspace,
  recordEdit,
  watchAutomatically,
  watchersBut,
} from '../db/watches.js';
import { wording } from '../domain/notification.js';
import { editorsOf, isWatchedChange } from '../domain/watch.js';
import { touch } from '../live/after-commit.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../settings.js';

/** What watching acts on: all of them reach the notification producer's consumer already. */
type WatchEvent = EventFor<
  | 'document.created'
  | 'document.updated'
  | 'document.deleted'
  | 'comment.added'
  | 'member.removed'
  | 'workspace.deleted'
>;

export interface WatchDeps {
  /** The workspace service, for members the projection does not hold yet. */
  peers: ServiceClient;
  /** WATCH_DEBOUNCE_S (settings.ts); the default when absent. */
  watchDebounceS?: number;
}

const WATCH_TYPES: ReadonlySet<string> = new Set([
  'document.created',
  'document.updated',
  'document.deleted',
  'comment.added',
  'member.removed',
  'workspace.deleted',
]);

const isWatchEvent = (event: { type: string }): event is WatchEvent => WATCH_TYPES.has(event.type);

/**
 * Watching (ARCHITECTURE 5.18), run by the notification producer in the same transaction as the
 * rest of an event's effects, so a redelivered event (recorded by the consumer) does nothing twice.
 */
export async function applyWatchEvent(
  event: { type: string },
  tx: DatabaseTransactionConnection,
  deps: WatchDeps,
): Promise<void> {
  if (!isWatchEvent(event)) return;
  switch (event.type) {
    case 'document.created':
      return watchAutomatically(tx, event.data.id, event.data.workspaceId, [
        ...new Set([event.data.createdBy ?? event.actorId].filter((id): id is string => Boolean(id))),
      ]);
    case 'document.updated':
      if (!isWatchedChange(event.data.changed)) return;
      return documentEdited(event, tx, deps);
    case 'comment.added':
      return watchAutomatically(tx, event.data.documentId, event.data.workspaceId, [event.data.authorId]);
    case 'document.deleted':
      return dropWatchesOfDocuments(tx, event.data.ids);
    case 'member.removed':
      return dropWatchesOfMember(tx, event.data.workspaceId, event.data.userId);
    case 'workspace.deleted':
      return dropWatchesOfWorkspace(tx, event.data.id);
  }
}

/**
 * The editors start watching; every other watcher who is still a member and wants notifications
 * gets a DOCUMENT_UPDATED, unless one of the last WATCH_DEBOUNCE_S told them of this document
 * already: then that one, while unread, counts the edit in `metadata.edits` instead.
 */
async function documentEdited(
  event: EventFor<'document.updated'>,
  tx: DatabaseTransactionConnection,
  deps: WatchDeps,
): Promise<void> {
  const d = event.data;
  const editors = editorsOf(event);
  await watchAutomatically(tx, d.id, d.workspaceId, editors);
  const watchers = await watchersBut(tx, d.id, editors);
  const recipients: string[] = [];
  for (const userId of watchers) {
    if (!(await isMember(tx, deps.peers, d.workspaceId, userId))) continue;
    if (!(await wantsNotifications(tx, userId))) continue;
    recipients.push(userId);
  }
  if (recipients.length === 0) return;
  const debounceS = deps.watchDebounceS ?? DEFAULT_NOTIFICATION_SETTINGS.watchDebounceS;
  const outcomes = await recordEdit(
    tx,
    { documentId: d.id, eventId: event.id, editAt: event.occurredAt, debounceS },
    recipients,
  );
  const told = outcomes.filter((o) => o.opensWindow).map((o) => o.userId);
  for (const o of outcomes) if (!o.opensWindow) await countEditOn(tx, o.userId, sourceKeyOf(o.windowEventId));
  if (told.length === 0) return;

  const actor = event.actorId ? await actorOf(tx, deps.peers, event.actorId) : null;
  const names = {
    actorName: actor?.name ?? null,
    actorAvatar: actor?.avatarUrl ?? null,
    workspaceName: await workspaceName(tx, d.workspaceId),
    documentTitle: d.title,
  };
  const text = wording('DOCUMENT_UPDATED', {
    actorName: names.actorName ?? '',
    workspaceName: names.workspaceName ?? '',
    documentTitle: d.title,
  });
  // In id order, like every producer: each insert locks that user's stream counter until the commit.
  for (const userId of told.sort()) {
    const made = await insertNotification(
      tx,
      {
        userId,
        type: 'DOCUMENT_UPDATED',
        ...text,
        actorId: event.actorId,
        workspaceId: d.workspaceId,
        documentId: d.id,
        metadata: { edits: 1 },
        sourceKey: sourceKeyOf(event.id),
      },
      names,
    );
    if (made) touch(tx, [userId]);
  }
}

/** Unique per recipient and edit: a replay finds its row (insertNotification's rule). */
const sourceKeyOf = (eventId: string) => `DOCUMENT_UPDATED:${eventId}`;
