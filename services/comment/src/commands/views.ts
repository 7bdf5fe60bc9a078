import type { CommonQueryMethods } from '@wiki/db';
import { listComments } from '../db/comments.js';
import type { ThreadRow } from '../db/threads.js';
import { type CommentThreadResponse, presentThread, usersShownBy } from '../presenters/thread.js';
import type { CommentContext } from './context.js';

/**
 * Loads the comments and user profiles the threads show and presents them, in the given order.
 * `requestId` (the request being served) goes with look-ups of users the projection lacks.
 */
export async function threadViews(
  ctx: CommentContext,
  threads: readonly ThreadRow[],
  requestId?: string,
  db: CommonQueryMethods = ctx.pool,
): Promise<CommentThreadResponse[]> {
  const comments = await listComments(
    db,
    threads.map((t) => t.id),
  );
  const profiles = await ctx.users.resolveMany(usersShownBy(threads, comments), requestId);
  const byThread = new Map<string, (typeof comments)[number][]>();
  for (const c of comments) {
    const list = byThread.get(c.threadId) ?? [];
    list.push(c);
    byThread.set(c.threadId, list);
  }
  return threads.map((t) => presentThread(t, byThread.get(t.id) ?? [], profiles));
}

export async function threadView(
  ctx: CommentContext,
  thread: ThreadRow,
  requestId?: string,
): Promise<CommentThreadResponse> {
  const [view] = await threadViews(ctx, [thread], requestId);
  return view;
}
