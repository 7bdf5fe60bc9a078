import type { ProjectedUser } from '@wiki/projections';
import type { CommentRow } from '../db/comments.js';
import type { ThreadRow } from '../db/threads.js';

/** The API shapes of spec 2 (CommentThreadResponse, CommentResponse); nothing else leaves the service. */

export interface UserReference {
  id: string;
  name: string;
  avatarUrl: string | null;
}

export interface CommentResponse {
  id: string;
  threadId: string;
  userId: string;
  userName: string;
  userAvatar: string | null;
  content: string;
  isEdited: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CommentThreadResponse {
  id: string;
  documentId: string;
  workspaceId: string;
  anchor: { blockId: string; startOffset: number; endOffset: number; selectedText: string };
  status: 'open' | 'resolved';
  resolvedAt: string | null;
  resolvedBy: UserReference | null;
  createdBy: UserReference;
  comments: CommentResponse[];
  createdAt: string;
  updatedAt: string;
}

/** Shown for an author the workspace service does not know (or cannot be asked about right now). */
export const UNKNOWN_USER_NAME = 'Unknown user';

/** Names and avatars by user id, from the users projection (libs/projections); a missing user gets a placeholder. */
export type Profiles = ReadonlyMap<string, Pick<ProjectedUser, 'id' | 'name' | 'avatarUrl'>>;

function profileOf(profiles: Profiles, id: string): Pick<ProjectedUser, 'id' | 'name' | 'avatarUrl'> {
  return profiles.get(id) ?? { id, name: UNKNOWN_USER_NAME, avatarUrl: null };
}

export function userReference(profiles: Profiles, id: string): UserReference {
  const p = profileOf(profiles, id);
  return { id, name: p.name, avatarUrl: p.avatarUrl };
}

export function presentComment(comment: CommentRow, profiles: Profiles): CommentResponse {
  const author = profileOf(profiles, comment.authorId);
  return {
    id: comment.id,
    threadId: comment.threadId,
    userId: comment.authorId,
    userName: author.name,
    userAvatar: author.avatarUrl,
    content: comment.content,
    isEdited: comment.isEdited,
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
  };
}

/** `comments` are the thread's comments in display order. */
export function presentThread(
  thread: ThreadRow,
  comments: readonly CommentRow[],
  profiles: Profiles,
): CommentThreadResponse {
  return {
    id: thread.id,
    documentId: thread.documentId,
    workspaceId: thread.workspaceId,
    anchor: {
      blockId: thread.blockId,
      startOffset: thread.startOffset,
      endOffset: thread.endOffset,
      selectedText: thread.selectedText,
    },
    status: thread.status,
    resolvedAt: thread.resolvedAt,
    resolvedBy: thread.resolvedBy ? userReference(profiles, thread.resolvedBy) : null,
    createdBy: userReference(profiles, thread.createdBy),
    comments: comments.map((c) => presentComment(c, profiles)),
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
  };
}

/** Every user a set of threads shows (authors, resolvers, creators). */
export function usersShownBy(threads: readonly ThreadRow[], comments: readonly CommentRow[]): string[] {
  const ids = new Set<string>();
  for (const t of threads) {
    ids.add(t.createdBy);
    if (t.resolvedBy) ids.add(t.resolvedBy);
  }
  for (const c of comments) ids.add(c.authorId);
  return [...ids];
}
