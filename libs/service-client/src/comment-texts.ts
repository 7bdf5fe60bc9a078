import { listOf, missingRoute } from './answer-lists.js';
import type { CallOptions, ServiceClient } from './service-client.js';

/**
 * A comment's text and where it hangs, as the comment service's `GET /internal/comments/texts`
 * sends it: the same plain text as comment.added / comment.edited carry (mentions as `@Name`).
 */
export interface CommentText {
  commentId: string;
  threadId: string;
  documentId: string;
  workspaceId: string;
  text: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface CommentTextsPage {
  /** One workspace's comments; every workspace's when absent. */
  workspaceId?: string;
  /** Resume after this comment id (exclusive). */
  after?: string;
  /** 1..500 (the route's bounds). */
  limit: number;
}

/**
 * The next `limit` comments (of threads and documents that still exist) in ascending comment id
 * after `after`, for rebuilding a search index: fewer than `limit` means the end. A 503 when the
 * comment service cannot be asked.
 */
export async function listCommentTexts(
  client: ServiceClient,
  page: CommentTextsPage,
  options: Pick<CallOptions<unknown>, 'requestId' | 'timeoutMs'> = {},
): Promise<CommentText[]> {
  const query = new URLSearchParams({ limit: String(page.limit) });
  if (page.workspaceId) query.set('workspaceId', page.workspaceId);
  if (page.after) query.set('after', page.after);
  const texts = await client.get<CommentText[]>('comment', `/internal/comments/texts?${query}`, {
    ...options,
    parse: (data) => listOf(data, parseCommentText, 'the comment texts answer'),
  });
  if (texts === null) throw missingRoute('comment', '/internal/comments/texts');
  return texts;
}

/** Checks an answer's shape; throws an Error naming `what` when a field is missing or wrong. */
export function parseCommentText(data: unknown, what: string): CommentText {
  const d = data as Partial<Record<keyof CommentText, unknown>> | null;
  if (
    typeof d?.commentId !== 'string' ||
    typeof d.threadId !== 'string' ||
    typeof d.documentId !== 'string' ||
    typeof d.workspaceId !== 'string' ||
    typeof d.text !== 'string' ||
    typeof d.updatedAt !== 'string'
  )
    throw new Error(`${what} lacks a field`);
  return {
    commentId: d.commentId,
    threadId: d.threadId,
    documentId: d.documentId,
    workspaceId: d.workspaceId,
    text: d.text,
    updatedAt: d.updatedAt,
  };
}
