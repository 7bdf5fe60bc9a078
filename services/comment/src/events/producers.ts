import type { CommonQueryMethods } from '@wiki/db';
import { EVENT_MAX_IDS, newEvent, publishInTx } from '@wiki/events';
import type { CommentRow } from '../db/comments.js';
import type { ThreadRow } from '../db/threads.js';
import { searchableText } from '../domain/mentions.js';

/**
 * The events this service emits (ARCHITECTURE 4), their data typed by the contracts of
 * @wiki/events, written to the outbox inside the caller's transaction so that each goes out
 * exactly when its change commits.
 */

/**
 * Participants as an event lists them: a thread's participants grow with every new author, so an
 * event carries the first EVENT_MAX_IDS (the creator first) and says when it left some out.
 * Mentions need no cap: one comment mentions at most MAX_MENTIONS users.
 */
function boundedParticipants(participants: string[]): { participants: string[]; participantsTruncated?: true } {
  if (participants.length <= EVENT_MAX_IDS) return { participants };
  return { participants: participants.slice(0, EVENT_MAX_IDS), participantsTruncated: true };
}

export type ThreadChange = 'thread_created' | 'thread_resolved' | 'thread_reopened' | 'thread_deleted';
export type CommentChange = 'added' | 'edited' | 'deleted';

/** `status` is the thread's status after the change (for thread_deleted: the status it had). */
export function emitThread(
  tx: CommonQueryMethods,
  change: ThreadChange,
  actorId: string,
  thread: ThreadRow,
  participants: string[],
) {
  return publishInTx(
    tx,
    newEvent(`comment.${change}`, {
      actorId,
      workspaceId: thread.workspaceId,
      data: {
        threadId: thread.id,
        documentId: thread.documentId,
        workspaceId: thread.workspaceId,
        status: thread.status,
        ...boundedParticipants(participants),
        createdBy: thread.createdBy,
        resolvedBy: thread.resolvedBy,
      },
    }),
  );
}

export interface CommentEventExtras {
  /** Member ids mentioned in the content, never the author. */
  mentions: string[];
  /** The thread's creator and every comment author, after the change. */
  participants: string[];
  /** For `edited`: the mentions the edit added (the others were told already). */
  newMentions?: string[];
}

export function emitComment(
  tx: CommonQueryMethods,
  change: CommentChange,
  actorId: string,
  thread: ThreadRow,
  comment: CommentRow,
  extras: CommentEventExtras,
) {
  const data = {
    commentId: comment.id,
    threadId: thread.id,
    documentId: thread.documentId,
    workspaceId: thread.workspaceId,
    authorId: comment.authorId,
    threadCreatedBy: thread.createdBy,
    mentions: extras.mentions,
    ...boundedParticipants(extras.participants),
  };
  // added and edited carry the text for the search index; deleted needs none.
  const text = change === 'deleted' ? undefined : searchableText(comment.content);
  const event =
    change === 'edited'
      ? newEvent('comment.edited', {
          actorId,
          workspaceId: thread.workspaceId,
          data: { ...data, text, ...(extras.newMentions ? { newMentions: extras.newMentions } : {}) },
        })
      : change === 'added'
        ? newEvent('comment.added', { actorId, workspaceId: thread.workspaceId, data: { ...data, text } })
        : newEvent('comment.deleted', { actorId, workspaceId: thread.workspaceId, data });
  return publishInTx(tx, event);
}
