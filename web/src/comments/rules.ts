import type { Comment, CommentThread, WorkspaceRole } from '../api/types';

/** The comment rules of ARCHITECTURE 3, as the panel shows them (the service enforces them). */
const LEVEL: Record<WorkspaceRole, number> = { OWNER: 5, ADMIN: 4, EDITOR: 3, COMMENTER: 2, VIEWER: 1 };

export interface Viewer {
  userId: string;
  role: WorkspaceRole;
}

/** Starting threads, replying, resolving and reopening need COMMENTER. */
export const canWrite = (viewer: Viewer) => LEVEL[viewer.role] >= LEVEL.COMMENTER;
const isAdmin = (viewer: Viewer) => LEVEL[viewer.role] >= LEVEL.ADMIN;

/** Only the author edits a comment, while they may still comment. */
export const canEditComment = (viewer: Viewer, comment: Comment) =>
  comment.userId === viewer.userId && canWrite(viewer);

/** Its author or an ADMIN+ deletes a comment. */
export const canDeleteComment = (viewer: Viewer, comment: Comment) =>
  comment.userId === viewer.userId || isAdmin(viewer);

/** Its creator or an ADMIN+ deletes a thread. */
export const canDeleteThread = (viewer: Viewer, thread: CommentThread) =>
  thread.createdBy.id === viewer.userId || isAdmin(viewer);

/** Why a reader sees no way to comment. */
export const readOnlyReason = (role: WorkspaceRole) =>
  `Your role (${role.toLowerCase()}) lets you read comments; commenters, editors and admins write them.`;
