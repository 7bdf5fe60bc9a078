import { atLeast, type Role } from '@wiki/auth';

/**
 * The comment rules of ARCHITECTURE 3 as plain decisions. The caller has already been found to be
 * a member (non-members get 404 before these run); a `false` here becomes 403.
 */

/** Reading threads needs VIEWER; writing (threads, replies, resolve, reopen) needs COMMENTER. */
export const READ_ROLE: Role = 'VIEWER';
export const WRITE_ROLE: Role = 'COMMENTER';

/** Only the author edits a comment, and only while they may still write comments. */
export function canEditComment(actorId: string, role: Role, authorId: string): boolean {
  return actorId === authorId && atLeast(role, WRITE_ROLE);
}

/** Its author (whatever their role now) or an ADMIN+ deletes a comment. */
export function canDeleteComment(actorId: string, role: Role, authorId: string): boolean {
  return actorId === authorId || atLeast(role, 'ADMIN');
}

/** Its creator (whatever their role now) or an ADMIN+ deletes a thread. */
export function canDeleteThread(actorId: string, role: Role, creatorId: string): boolean {
  return actorId === creatorId || atLeast(role, 'ADMIN');
}

export type ThreadStatus = 'open' | 'resolved';

/** What the thread list may be filtered by. */
export const THREAD_STATUS_FILTERS = ['all', 'open', 'resolved'] as const;
export type ThreadStatusFilter = (typeof THREAD_STATUS_FILTERS)[number];
export type ThreadTransition = 'resolve' | 'reopen';

/**
 * The thread state table of spec 3: open -resolve-> resolved -reopen-> open. Resolving a resolved
 * thread or reopening an open one is refused (409) rather than silently repeated, so a client
 * acting on a stale view learns that someone else got there first.
 */
export function nextStatus(current: ThreadStatus, transition: ThreadTransition): ThreadStatus | null {
  if (transition === 'resolve') return current === 'open' ? 'resolved' : null;
  return current === 'resolved' ? 'open' : null;
}

/** Thread participants: its creator and every comment author, each once, in order of arrival. */
export function participantsOf(creatorId: string, commentAuthorIds: readonly string[]): string[] {
  return [...new Set([creatorId, ...commentAuthorIds])];
}

export interface AnchorInput {
  blockId: string;
  startOffset: number;
  endOffset: number;
  selectedText: string;
}

/** The cross-field rule the JSON schema cannot state: a selection never ends before it starts. */
export function anchorProblem(anchor: AnchorInput): { field: string; message: string } | null {
  if (anchor.endOffset < anchor.startOffset) {
    return { field: 'anchor.endOffset', message: 'must be greater than or equal to anchor.startOffset' };
  }
  return null;
}
