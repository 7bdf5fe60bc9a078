import { randomUUID } from 'node:crypto';
import { forbidden, notFound } from '@wiki/http';
import {
  commentAuthors,
  countComments,
  findComment,
  insertComment,
  deleteComment as removeComment,
  updateCommentContent,
} from '../db/comments.js';
import { findThread, touchThread } from '../db/threads.js';
import { mentionedUserIds, newlyMentioned } from '../domain/mentions.js';
import { canDeleteComment, canEditComment, participantsOf, READ_ROLE, WRITE_ROLE } from '../domain/rules.js';
import { emitComment } from '../events/producers.js';
import { type CommentResponse, presentComment } from '../presenters/thread.js';
import type { Actor, CommentContext } from './context.js';
import { mentionedMembers } from './mentions.js';
import { deleteThreadInTx, rememberActor, threadForMember } from './threads.js';

/** The comment, its thread and the caller's role; 404 for a missing comment or a non-member. */
async function commentForMember(ctx: CommentContext, commentId: string, actor: Actor) {
  const comment = await findComment(ctx.pool, commentId);
  if (!comment) throw notFound('Comment');
  const thread = await findThread(ctx.pool, comment.threadId);
  if (!thread) throw notFound('Comment');
  const role = await ctx.access.requireRole(thread.workspaceId, actor.userId, READ_ROLE, 'Comment', actor.requestId);
  return { comment, thread, role };
}

async function present(
  ctx: CommentContext,
  comment: Parameters<typeof presentComment>[0],
  requestId?: string,
): Promise<CommentResponse> {
  return presentComment(comment, await ctx.users.resolveMany([comment.authorId], requestId));
}

/**
 * Adds a reply. Replying to a resolved thread is allowed and leaves it resolved (reopening is its
 * own, explicit transition).
 */
export async function addComment(
  ctx: CommentContext,
  actor: Actor,
  threadId: string,
  content: string,
): Promise<CommentResponse> {
  const { thread } = await threadForMember(ctx, threadId, actor, WRITE_ROLE);
  const mentions = await mentionedMembers(ctx, thread.workspaceId, content, actor.userId, actor.requestId);
  await rememberActor(ctx, actor);
  const comment = await ctx.pool.transaction(async (tx) => {
    // The lock orders this after a concurrent thread deletion (which then wins with a 404).
    const current = await findThread(tx, threadId, true);
    if (!current) throw notFound('Thread');
    const added = await insertComment(tx, { id: randomUUID(), threadId, authorId: actor.userId, content });
    await touchThread(tx, threadId);
    const participants = participantsOf(current.createdBy, await commentAuthors(tx, threadId));
    await emitComment(tx, 'added', actor.userId, current, added, { mentions, participants });
    return added;
  });
  return present(ctx, comment, actor.requestId);
}

/** Only the author edits; the comment becomes isEdited. */
export async function editComment(
  ctx: CommentContext,
  actor: Actor,
  commentId: string,
  content: string,
): Promise<CommentResponse> {
  const { comment, thread, role } = await commentForMember(ctx, commentId, actor);
  if (!canEditComment(actor.userId, role, comment.authorId)) {
    throw forbidden(
      comment.authorId === actor.userId
        ? 'This needs the COMMENTER role or higher'
        : 'Only the author can edit this comment',
    );
  }
  const mentions = await mentionedMembers(ctx, thread.workspaceId, content, actor.userId, actor.requestId);
  await rememberActor(ctx, actor);
  const edited = await ctx.pool.transaction(async (tx) => {
    const current = await findThread(tx, thread.id, true);
    const before = await findComment(tx, commentId, true);
    if (!current || !before) throw notFound('Comment');
    const after = await updateCommentContent(tx, commentId, content);
    await touchThread(tx, current.id);
    const participants = participantsOf(current.createdBy, await commentAuthors(tx, current.id));
    const newMentions = newlyMentioned(mentionedUserIds(before.content, actor.userId), mentions);
    await emitComment(tx, 'edited', actor.userId, current, after, { mentions, participants, newMentions });
    return after;
  });
  return present(ctx, edited, actor.requestId);
}

/**
 * Its author or an ADMIN+ deletes a comment. Deleting the last comment of a thread deletes the
 * thread too (an empty thread has nothing to show, yet its anchor would stay highlighted).
 */
export async function deleteComment(ctx: CommentContext, actor: Actor, commentId: string): Promise<void> {
  const { comment, thread, role } = await commentForMember(ctx, commentId, actor);
  if (!canDeleteComment(actor.userId, role, comment.authorId))
    throw forbidden('Only the author or an admin can delete this comment');
  await ctx.pool.transaction(async (tx) => {
    const current = await findThread(tx, thread.id, true);
    const target = await findComment(tx, commentId, true);
    if (!current || !target) throw notFound('Comment');
    await removeComment(tx, commentId);
    const remaining = await countComments(tx, current.id);
    const participants = participantsOf(current.createdBy, await commentAuthors(tx, current.id));
    await emitComment(tx, 'deleted', actor.userId, current, target, { mentions: [], participants });
    if (remaining === 0) await deleteThreadInTx(tx, actor, current);
    else await touchThread(tx, current.id);
  });
}
