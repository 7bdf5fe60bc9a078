import { type ClosableReads, isoTimestampSql, preparedReads } from '@wiki/db';
import type { ProjectedUser } from '@wiki/projections';
import type { CommentRow } from './comments.js';
import type { ThreadRow } from './threads.js';

/**
 * GET /comments/documents/{id}/threads on a plain node-postgres pool with a named prepared
 * statement: the document's projection row, its threads, their comments and the names and avatars
 * of the users they show come back in ONE statement that Postgres parses and plans once per
 * connection, instead of four slonik queries whose rows each went through an asynchronous zod check.
 * The rows are the ThreadRow and CommentRow of db/threads.ts and db/comments.ts, which the tests
 * check: timestamps are formatted by Postgres as the ISO text the shared pool's parser produces,
 * and every other column's default pg parser gives the row's type (uuid and text as strings,
 * int4 as a number, boolean). Everything else stays on the slonik pool.
 */
export interface PreparedReads extends ClosableReads {
  /**
   * The document's threads (oldest first) with their comments (oldest first), or null when the
   * document projection has no row for it (ask the document service, then read again). A deleted
   * document answers `deleted` and no threads.
   */
  listThreadsOf(documentId: string, status: 'open' | 'resolved' | null): Promise<ThreadListing | null>;
}

export interface ThreadListing {
  workspaceId: string;
  deleted: boolean;
  threads: ThreadRow[];
  /** Each thread's comments in display order, by thread id (a thread without comments has none). */
  comments: Map<string, CommentRow[]>;
  /** The users the threads show that the users projection holds. */
  profiles: Map<string, Pick<ProjectedUser, 'id' | 'name' | 'avatarUrl'>>;
  /** Users the threads show that the users projection does not hold (to look up, or show as unknown). */
  missingUsers: string[];
}

const iso = isoTimestampSql;

/** One row per comment (a thread without comments once, a document without threads once). */
interface ListingRow {
  docWorkspaceId: string;
  deleted: boolean;
  id: string | null;
  workspaceId: string;
  blockId: string;
  startOffset: number;
  endOffset: number;
  selectedText: string;
  status: 'open' | 'resolved';
  resolvedAt: string | null;
  resolvedBy: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  creatorName: string | null;
  creatorAvatar: string | null;
  resolverName: string | null;
  resolverAvatar: string | null;
  commentId: string | null;
  authorId: string;
  content: string;
  isEdited: boolean;
  commentCreatedAt: string;
  commentUpdatedAt: string;
  authorName: string | null;
  authorAvatar: string | null;
}

/**
 * Threads of a live document only; `$2` null means every status. Names come from the users
 * projection of libs/projections (table projection_users, see usersProjectionTable); a user it lacks has a
 * null name. Order as db/threads.ts listThreads and db/comments.ts listComments.
 */
const LIST_THREADS = {
  // The name is per connection; change it whenever the text changes.
  name: 'comment_list_threads_v1',
  text: `
    SELECT d.workspace_id AS "docWorkspaceId", d.deleted_at IS NOT NULL AS deleted,
      t.id, t.workspace_id AS "workspaceId", t.block_id AS "blockId", t.start_offset AS "startOffset",
      t.end_offset AS "endOffset", t.selected_text AS "selectedText", t.status,
      ${iso('t.resolved_at')} AS "resolvedAt", t.resolved_by AS "resolvedBy", t.created_by AS "createdBy",
      ${iso('t.created_at')} AS "createdAt", ${iso('t.updated_at')} AS "updatedAt",
      cu.name AS "creatorName", cu.avatar_url AS "creatorAvatar",
      ru.name AS "resolverName", ru.avatar_url AS "resolverAvatar",
      c.id AS "commentId", c.author_id AS "authorId", c.content, c.is_edited AS "isEdited",
      ${iso('c.created_at')} AS "commentCreatedAt", ${iso('c.updated_at')} AS "commentUpdatedAt",
      au.name AS "authorName", au.avatar_url AS "authorAvatar"
    FROM document_projection d
    LEFT JOIN comment_threads t
      ON t.document_id = d.id AND d.deleted_at IS NULL AND ($2::text IS NULL OR t.status = $2::text)
    LEFT JOIN comments c ON c.thread_id = t.id
    LEFT JOIN projection_users cu ON cu.id = t.created_by
    LEFT JOIN projection_users ru ON ru.id = t.resolved_by
    LEFT JOIN projection_users au ON au.id = c.author_id
    WHERE d.id = $1
    ORDER BY t.created_at, t.seq, c.created_at, c.seq`,
};

/** Groups the joined rows into threads, comments and profiles, each once. */
function toListing(documentId: string, rows: readonly ListingRow[]): ThreadListing | null {
  const first = rows[0];
  if (!first) return null;
  const listing: ThreadListing = {
    workspaceId: first.docWorkspaceId,
    deleted: first.deleted,
    threads: [],
    comments: new Map(),
    profiles: new Map(),
    missingUsers: [],
  };
  const missing = new Set<string>();
  const seeUser = (id: string, name: string | null, avatarUrl: string | null) => {
    if (listing.profiles.has(id) || missing.has(id)) return;
    if (name !== null) listing.profiles.set(id, { id, name, avatarUrl });
    else missing.add(id);
  };
  let threadId: string | null = null;
  let comments: CommentRow[] = [];
  for (const r of rows) {
    if (r.id === null) continue; // the document's own row: no threads
    if (threadId !== r.id) {
      threadId = r.id;
      listing.threads.push({
        id: r.id,
        documentId,
        workspaceId: r.workspaceId,
        blockId: r.blockId,
        startOffset: r.startOffset,
        endOffset: r.endOffset,
        selectedText: r.selectedText,
        status: r.status,
        resolvedAt: r.resolvedAt,
        resolvedBy: r.resolvedBy,
        createdBy: r.createdBy,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      });
      comments = [];
      listing.comments.set(r.id, comments);
      seeUser(r.createdBy, r.creatorName, r.creatorAvatar);
      if (r.resolvedBy) seeUser(r.resolvedBy, r.resolverName, r.resolverAvatar);
    }
    if (r.commentId === null) continue;
    comments.push({
      id: r.commentId,
      threadId: r.id,
      authorId: r.authorId,
      content: r.content,
      isEdited: r.isEdited,
      createdAt: r.commentCreatedAt,
      updatedAt: r.commentUpdatedAt,
    });
    seeUser(r.authorId, r.authorName, r.authorAvatar);
  }
  listing.missingUsers = [...missing];
  return listing;
}

export const createPreparedReads = preparedReads<PreparedReads>((run) => ({
  async listThreadsOf(documentId, status) {
    return toListing(documentId, await run<ListingRow>(LIST_THREADS, [documentId, status]));
  },
}));
