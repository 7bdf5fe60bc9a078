import type { CommonQueryMethods } from '@wiki/db';
import { newEvent, publishInTx } from '@wiki/events';
import type { CommentRow } from '../db/comments.js';
import type { ThreadRow } from '../db/threads.js';

/**
 * The events this service emits (ARCHITECTURE 4), their data typed by the contracts of
 * @wiki/events, written to the outbox inside the caller's transaction so that each goes out
 * exactly when its change commits.
 */

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
        participants,
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
    participants: extras.participants,
  };
  const event =
    change === 'edited'
      ? newEvent('comment.edited', {
          actorId,
          workspaceId: thread.workspaceId,
          data: extras.newMentions ? { ...data, newMentions: extras.newMentions } : data,
        })
      : newEvent(`comment.${change}`, { actorId, workspaceId: thread.workspaceId, data });
  return publishInTx(tx, event);
}
