import type { EditSource, RevisionSummary, UserRef } from '../api/types';
import { formatDateTime } from '../locale/dates';

/** How each source of a change is told in the history (ARCHITECTURE 5.16's EDIT_SOURCES). */
export const SOURCE_LABELS: Record<EditSource, string> = {
  EDIT: 'Edited',
  COLLAB: 'Live editing',
  MCP: 'AI assistant',
  RESTORE: 'Restored',
  IMPORT: 'Imported',
};

/** A revision's time the way the reader's preferred locale (or else the browser's) writes it. */
export function formatWhen(iso: string, locale?: string): string {
  return formatDateTime(iso, locale);
}

/** A user's name, or what to call someone whose account is gone. */
export const nameOf = (user: UserRef) => user.name || 'A former member';

/** The people besides the author who changed the text within this revision. */
export function otherContributors(revision: RevisionSummary): UserRef[] {
  const seen = new Set([revision.createdBy.id]);
  return revision.contributors.filter((user) => {
    if (seen.has(user.id)) return false;
    seen.add(user.id);
    return true;
  });
}
