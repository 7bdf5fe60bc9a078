import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from '@wiki/db';
import { badRequest, forbidden, notFound, refusal } from '@wiki/http';
import { commentAuthors, insertComment } from '../db/comments.js';
import {
  findThread,
  insertThread,
  deleteThread as removeThread,
  setThreadStatus,
  type ThreadRow,
} from '../db/threads.js';
import {
  type AnchorInput,
  anchorProblem,
  canDeleteThread,
  nextStatus,
  participantsOf,
  READ_ROLE,
  type ThreadStatusFilter,
  type ThreadTransition,
  WRITE_ROLE,
} from '../domain/rules.js';
import { emitComment, emitThread } from '../events/producers.js';
import { type CommentThreadResponse, presentThread } from '../presenters/thread.js';
import type { Actor, CommentContext } from './context.js';
import { mentionedMembers } from './mentions.js';
import { threadView } from './views.js';

/** Keeps the caller's name and avatar at hand for presenting what they write. */
export async function rememberActor(ctx: CommentContext, actor: Actor): Promise<void> {
  await ctx.users.remember(actor);
}

/** The thread and the caller's role in its workspace; 404 for a missing thread or a non-member. */
export async function threadForMember(ctx: CommentContext, threadId: string, actor: Actor, minimum = READ_ROLE) {
  const thread = await findThread(ctx.pool, threadId);
  if (!thread) throw notFound('Thread');
  const role = await ctx.access.requireRole(thread.workspaceId, actor.userId, minimum, 'Thread', actor.requestId);
  return { thread, role };
}

/**
 * A document's threads in one statement (document, threads, comments and names); the role check
 * reuses the membership projection's short-lived answer. Only what the projections lack costs more:
 * a document never seen is asked of the document service (then read again), users never seen are
 * looked up by id.
 */
export async function listThreads(
  ctx: CommentContext,
  actor: Actor,
  documentId: string,
  status: ThreadStatusFilter,
): Promise<CommentThreadResponse[]> {
  const filter = status === 'all' ? null : status;
  let listing = await ctx.reads.listThreadsOf(documentId, filter);
  if (!listing) {
    await ctx.documents.require(documentId, actor.requestId);
    listing = await ctx.reads.listThreadsOf(documentId, filter);
  }
  if (!listing || listing.deleted) throw notFound('Document');
  await ctx.access.requireRole(listing.workspaceId, actor.userId, READ_ROLE, 'Document', actor.requestId);
  const { threads, comments, profiles, missingUsers } = listing;
  if (missingUsers.length > 0)
    for (const [id, user] of await ctx.users.resolveMany(missingUsers, actor.requestId)) profiles.set(id, user);
  return threads.map((t) => presentThread(t, comments.get(t.id) ?? [], profiles));
}

export async function createThread(
  ctx: CommentContext,
  actor: Actor,
  documentId: string,
  input: { anchor: AnchorInput; comment: { content: string } },
): Promise<CommentThreadResponse> {
  const problem = anchorProblem(input.anchor);
  if (problem) throw badRequest(`${problem.field} ${problem.message}`, [problem]);
  const doc = await ctx.documents.require(documentId, actor.requestId);
  await ctx.access.requireRole(doc.workspaceId, actor.userId, WRITE_ROLE, 'Document', actor.requestId);
  const mentions = await mentionedMembers(ctx, doc.workspaceId, input.comment.content, actor.userId, actor.requestId);
  await rememberActor(ctx, actor);

  const thread = await ctx.pool.transaction(async (tx) => {
    const created = await insertThread(tx, {
      id: randomUUID(),
      documentId,
      workspaceId: doc.workspaceId,
      createdBy: actor.userId,
      ...input.anchor,
    });
    const first = await insertComment(tx, {
      id: randomUUID(),
      threadId: created.id,
      authorId: actor.userId,
      content: input.comment.content,
    });
    const participants = [actor.userId];
    await emitThread(tx, 'thread_created', actor.userId, created, participants);
    // The first comment is an ordinary comment too: its mentions travel on comment.added.
    await emitComment(tx, 'added', actor.userId, created, first, { mentions, participants });
    return created;
  });
  return threadView(ctx, thread, actor.requestId);
}

/** resolve: open -> resolved (sets resolvedAt/resolvedBy); reopen: resolved -> open (clears them). */
export async function transitionThread(
  ctx: CommentContext,
  actor: Actor,
  threadId: string,
  transition: ThreadTransition,
): Promise<CommentThreadResponse> {
  await threadForMember(ctx, threadId, actor, WRITE_ROLE);
  await rememberActor(ctx, actor);
  const updated = await ctx.pool.transaction(async (tx) => {
    const current = await findThread(tx, threadId, true);
    if (!current) throw notFound('Thread');
    const next = nextStatus(current.status, transition);
    if (!next)
      throw transition === 'resolve'
        ? refusal('THREAD_ALREADY_RESOLVED', 'The thread is already resolved')
        : refusal('THREAD_ALREADY_OPEN', 'The thread is already open');
    const changed = await setThreadStatus(tx, threadId, next, actor.userId);
    const participants = participantsOf(changed.createdBy, await commentAuthors(tx, threadId));
    await emitThread(
      tx,
      transition === 'resolve' ? 'thread_resolved' : 'thread_reopened',
      actor.userId,
      changed,
      participants,
    );
    return changed;
  });
  return threadView(ctx, updated, actor.requestId);
}

/** Deletes a thread with all its comments; its creator or an ADMIN+ may. */
export async function deleteThread(ctx: CommentContext, actor: Actor, threadId: string): Promise<void> {
  const { thread, role } = await threadForMember(ctx, threadId, actor);
  if (!canDeleteThread(actor.userId, role, thread.createdBy))
    throw forbidden('Only the thread creator or an admin can delete this thread');
  await ctx.pool.transaction(async (tx) => {
    const current = await findThread(tx, threadId, true);
    if (!current) throw notFound('Thread');
    await deleteThreadInTx(tx, actor, current);
  });
}

/** Removes a locked thread and announces it, with the status it had (open threads count on documents). */
export async function deleteThreadInTx(tx: CommonQueryMethods, actor: Actor, thread: ThreadRow): Promise<void> {
  const participants = participantsOf(thread.createdBy, await commentAuthors(tx, thread.id));
  await removeThread(tx, thread.id);
  await emitThread(tx, 'thread_deleted', actor.userId, thread, participants);
}
