import type { DocumentChange } from '@wiki/events';

/** Rules of watching documents (ARCHITECTURE 5.18), as plain functions. */

/** The changes a watcher is told of: the title or the content (not an icon, a cover, a saver's name). */
const WATCHED_CHANGES: ReadonlySet<DocumentChange> = new Set(['title', 'content']);

export function isWatchedChange(changed: readonly DocumentChange[]): boolean {
  return changed.some((change) => WATCHED_CHANGES.has(change));
}

/**
 * Who made an edit: the event's `editors` when it names them (a collab save holds everyone who
 * typed since the last save), else its actor. Empty when nobody is known (a collab save whose
 * editor could not be looked up).
 */
export function editorsOf(event: { actorId: string | null; data: { editors?: readonly string[] } }): string[] {
  const named = event.data.editors ?? [];
  const all = event.actorId ? [event.actorId, ...named] : [...named];
  return [...new Set(all)];
}
