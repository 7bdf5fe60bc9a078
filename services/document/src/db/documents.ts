import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { usersProjectionTable } from '@wiki/projections';
import type { EditSource } from '../domain/edit-source.js';
import { iso, shape } from './shape.js';
import { PLACED_TEXT } from './whole-document.js';

/** Kept by triggers (migrations/0002_child_counts.sql): one index lookup, whatever the number of children. */
const visibleChildCount = sql.fragment`coalesce((SELECT c.visible_children FROM document_child_counts c WHERE c.document_id = d.id), 0)`;

/** From the comment service's events (db/comment-threads.ts); one index range (the open threads' partial index). */
const openThreadCount = sql.fragment`(SELECT count(*)::int FROM comment_thread_projection t WHERE t.document_id = d.id AND t.is_open)`;

/**
 * Everything DocumentResponse needs, in one query: counts and user names joined in. Read by the
 * prepared GET and answered by the creating INSERT itself (db/prepared-statements.ts), shown by
 * presenters/documents.ts.
 */
export const DocumentDetail = shape(
  {
    id: [z.string(), sql.fragment`d.id`],
    workspaceId: [z.string(), sql.fragment`d.workspace_id`],
    parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
    title: [z.string(), sql.fragment`d.title`],
    content: [z.string(), sql.fragment`d.content`],
    excerpt: [z.string(), sql.fragment`d.excerpt`],
    wordCount: [z.number(), sql.fragment`d.word_count`],
    icon: [z.string().nullable(), sql.fragment`d.icon`],
    coverImageUrl: [z.string().nullable(), sql.fragment`d.cover_image_url`],
    // Kept by the history trigger (migrations/0009_revisions.sql); the ETag of GET and PUT.
    revision: [z.number(), sql.fragment`d.revision`],
    isTemplate: [z.boolean(), sql.fragment`d.is_template`],
    isArchived: [z.boolean(), sql.fragment`d.is_archived`],
    isPublished: [z.boolean(), sql.fragment`d.is_published`],
    ownerId: [z.string(), sql.fragment`d.owner_id`],
    createdBy: [z.string(), sql.fragment`d.created_by`],
    lastEditedBy: [z.string(), sql.fragment`d.last_edited_by`],
    // Formatted by Postgres: the prepared statements' rows are not parsed.
    createdAt: [z.string(), iso(sql.fragment`d.created_at`)],
    updatedAt: [z.string(), iso(sql.fragment`d.updated_at`)],
    childCount: [z.number(), visibleChildCount],
    openCommentCount: [z.number(), openThreadCount],
    // Null when the users projection does not know the user yet (the presenter looks it up then).
    createdByName: [z.string().nullable(), sql.fragment`cu.name`],
    createdByAvatarUrl: [z.string().nullable(), sql.fragment`cu.avatar_url`],
    lastEditedByName: [z.string().nullable(), sql.fragment`eu.name`],
    lastEditedByAvatarUrl: [z.string().nullable(), sql.fragment`eu.avatar_url`],
  },
  sql.fragment`LEFT JOIN ${usersProjectionTable} cu ON cu.id = d.created_by
    LEFT JOIN ${usersProjectionTable} eu ON eu.id = d.last_edited_by`,
);
export type DocumentDetail = z.infer<typeof DocumentDetail.row>;

/** The fields of a document that events and rules need (no content). */
export const DocumentState = shape({
  ...PLACED_TEXT,
  isTemplate: [z.boolean(), sql.fragment`d.is_template`],
  isArchived: [z.boolean(), sql.fragment`d.is_archived`],
  archiveRootId: [z.string().nullable(), sql.fragment`d.archive_root_id`],
  isPublished: [z.boolean(), sql.fragment`d.is_published`],
  revision: [z.number(), sql.fragment`d.revision`],
  updatedAt: [z.string(), sql.fragment`d.updated_at`],
});
export type DocumentState = z.infer<typeof DocumentState.row>;

/** A document in a list of siblings (DocumentListResponse). */
export const ListItem = shape({
  id: [z.string(), sql.fragment`d.id`],
  title: [z.string(), sql.fragment`d.title`],
  parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
  workspaceId: [z.string(), sql.fragment`d.workspace_id`],
  icon: [z.string().nullable(), sql.fragment`d.icon`],
  // Formatted by Postgres: lists are read by a prepared statement (db/prepared-statements.ts).
  updatedAt: [z.string(), iso(sql.fragment`d.updated_at`)],
  childCount: [z.number(), visibleChildCount],
  // Moves the workspace's version too (migrations/0013), so remembered lists stay true.
  openCommentCount: [z.number(), openThreadCount],
});
export type ListItem = z.infer<typeof ListItem.row>;

/** `lock`: FOR UPDATE (the document is being changed) or FOR SHARE (it must not change under us). */
export function findState(
  db: CommonQueryMethods,
  id: string,
  lock?: 'update' | 'share',
): Promise<DocumentState | null> {
  const clause =
    lock === 'update' ? sql.fragment`FOR UPDATE` : lock === 'share' ? sql.fragment`FOR SHARE` : sql.fragment``;
  return db.maybeOne(
    sql.type(DocumentState.row)`SELECT ${DocumentState.columns} FROM documents d WHERE d.id = ${id} ${clause}`,
  );
}

/** The state of a document this transaction has just seen or changed: its absence is a bug, not a 404. */
export async function stateOf(db: CommonQueryMethods, id: string): Promise<DocumentState> {
  return db.one(sql.type(DocumentState.row)`SELECT ${DocumentState.columns} FROM documents d WHERE d.id = ${id}`);
}

/** A document's block content with what an export prints beside it (title, workspace for the role check). */
export const DocumentContent = shape({
  id: [z.string(), sql.fragment`d.id`],
  workspaceId: [z.string(), sql.fragment`d.workspace_id`],
  title: [z.string(), sql.fragment`d.title`],
  content: [z.string(), sql.fragment`d.content`],
  isArchived: [z.boolean(), sql.fragment`d.is_archived`],
  updatedAt: [z.string(), iso(sql.fragment`d.updated_at`)],
});
export type DocumentContent = z.infer<typeof DocumentContent.row>;

export function findContent(db: CommonQueryMethods, id: string): Promise<DocumentContent | null> {
  return db.maybeOne(
    sql.type(DocumentContent.row)`SELECT ${DocumentContent.columns} FROM documents d WHERE d.id = ${id}`,
  );
}

/** The workspace a document belongs to, or null: the first step of every permission check. */
export function findWorkspaceOf(db: CommonQueryMethods, id: string): Promise<string | null> {
  return db.maybeOneFirst(
    sql.type(
      z.object({ workspaceId: z.string() }),
    )`SELECT workspace_id AS "workspaceId" FROM documents WHERE id = ${id}`,
  );
}

export interface NewDocument {
  workspaceId: string;
  parentId: string | null;
  title: string;
  content: string;
  plainText: string;
  excerpt: string;
  wordCount: number;
  icon: string | null;
  coverImageUrl: string | null;
  userId: string;
}

export interface DocumentPatch {
  title?: string;
  content?: { json: string; plainText: string; excerpt: string; wordCount: number };
  /** Plain text alone (a collab save without JSON): feeds search, excerpt and word count. */
  plainText?: { plainText: string; excerpt: string; wordCount: number };
  icon?: string | null;
  coverImageUrl?: string | null;
  lastEditedBy?: string;
  /** Where the change comes from and whose it is, for its revision (migrations/0009_revisions.sql). */
  editSource?: EditSource;
  editAuthors?: string[];
}

/** Applies the patch and stamps updated_at; returns the new state. */
export function updateDocument(db: CommonQueryMethods, id: string, patch: DocumentPatch): Promise<DocumentState> {
  const sets = [sql.fragment`updated_at = now()`];
  if (patch.title !== undefined) sets.push(sql.fragment`title = ${patch.title}`);
  const text = patch.content ?? patch.plainText;
  if (patch.content) sets.push(sql.fragment`content = ${patch.content.json}`);
  // Spares the history trigger comparing the stored content with itself (migrations/0012).
  else sets.push(sql.fragment`content_kept = true`);
  if (text)
    sets.push(sql.fragment`plain_text = ${text.plainText}, excerpt = ${text.excerpt}, word_count = ${text.wordCount}`);
  if (patch.icon !== undefined) sets.push(sql.fragment`icon = ${patch.icon}`);
  if (patch.coverImageUrl !== undefined) sets.push(sql.fragment`cover_image_url = ${patch.coverImageUrl}`);
  if (patch.lastEditedBy !== undefined) sets.push(sql.fragment`last_edited_by = ${patch.lastEditedBy}`);
  if (patch.editSource !== undefined) sets.push(sql.fragment`edit_source = ${patch.editSource}`);
  if (patch.editAuthors?.length) sets.push(sql.fragment`edit_authors = ${sql.array(patch.editAuthors, 'uuid')}`);
  return db.one(sql.type(DocumentState.row)`
    UPDATE documents d SET ${sql.join(sets, sql.fragment`, `)} WHERE d.id = ${id} RETURNING ${DocumentState.columns}`);
}

export function setPublished(db: CommonQueryMethods, id: string, published: boolean): Promise<DocumentState> {
  return db.one(sql.type(DocumentState.row)`
    UPDATE documents d SET is_published = ${published}, published_at = CASE WHEN ${published} THEN now() END, updated_at = now()
    WHERE d.id = ${id} RETURNING ${DocumentState.columns}`);
}

/**
 * All visible documents of a workspace as the one text value domain/tree.ts reads (records in
 * sibling order, see there): one query and one value however large the workspace, far cheaper than
 * 10,000 rows (per-row overhead in the driver) or json_agg (per-row JSON building in Postgres).
 * The separators are replaced by spaces inside titles and icons. Read from documents_tree_idx.
 */
export function treeText(
  db: CommonQueryMethods,
  workspaceId: string,
): Promise<{ version: number; rows: string | null }> {
  // The version in the same statement (one snapshot): the text is exactly the tree of that version.
  return db.one(sql.type(z.object({ version: z.number(), rows: z.string().nullable() }))`
    SELECT ${treeVersionOf(workspaceId)} AS version,
      string_agg(d.id || E'\x1f' || coalesce(d.parent_id::text, '') || E'\x1f' || (d.updated_at AT TIME ZONE 'UTC')::text
        || E'\x1f' || coalesce(translate(d.icon, E'\x1e\x1f', '  '), '') || E'\x1f' || translate(d.title, E'\x1e\x1f', '  '), E'\x1e') AS rows
    FROM (
      -- Positions are unique (one sequence), so this is the sibling order.
      SELECT id, parent_id, updated_at, icon, title FROM documents
      WHERE workspace_id = ${workspaceId} AND NOT is_archived
      ORDER BY position
    ) d`);
}

/**
 * The workspace's tree version (migrations/0007_tree_versions.sql, summed over the rows of
 * 0008_tree_version_shards.sql); 0 before its first document.
 */
const treeVersionOf = (workspaceId: string) =>
  sql.fragment`(SELECT coalesce(sum(version), 0)::bigint FROM workspace_tree_versions WHERE workspace_id = ${workspaceId})`;

/** The workspace's tree version alone: what a remembered tree is checked against. */
export function treeVersion(db: CommonQueryMethods, workspaceId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ version: z.number() }))`SELECT ${treeVersionOf(workspaceId)} AS version`);
}

/** Published, not archived children: what a public reader sees under a document. */
export const publicChildCount = sql.fragment`
  (SELECT count(*)::int FROM documents c WHERE c.parent_id = d.id AND c.is_published AND NOT c.is_archived)`;

/** A link of the chain from the root down to a document (DocumentBreadcrumb, and the public chain). */
export const Breadcrumb = shape({
  id: [z.string(), sql.fragment`d.id`],
  parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
  title: [z.string(), sql.fragment`d.title`],
  icon: [z.string().nullable(), sql.fragment`d.icon`],
  isPublished: [z.boolean(), sql.fragment`d.is_published`],
  isArchived: [z.boolean(), sql.fragment`d.is_archived`],
  childCount: [z.number(), visibleChildCount],
  publicChildCount: [z.number(), publicChildCount],
});
export type Breadcrumb = z.infer<typeof Breadcrumb.row>;

/** Longest chain walked upwards: far beyond any real tree, it only stops a corrupt one. */
const MAX_DEPTH = 10_000;

/** The document and its ancestors, ordered from the root down to the document itself. */
export function ancestorsOf(db: CommonQueryMethods, id: string): Promise<readonly Breadcrumb[]> {
  return db.any(sql.type(Breadcrumb.row)`
    WITH RECURSIVE up AS (
      SELECT d.id, d.parent_id, 0 AS depth FROM documents d WHERE d.id = ${id}
      UNION ALL
      SELECT p.id, p.parent_id, up.depth + 1 FROM documents p JOIN up ON p.id = up.parent_id WHERE up.depth < ${MAX_DEPTH}
    )
    SELECT ${Breadcrumb.columns}
    FROM up JOIN documents d ON d.id = up.id
    ORDER BY up.depth DESC`);
}

/** Whether `ancestorId` is `id` itself or one of its ancestors. */
export function isSelfOrAncestor(db: CommonQueryMethods, ancestorId: string, id: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ found: z.boolean() }))`
    WITH RECURSIVE up AS (
      SELECT d.id, d.parent_id, 0 AS depth FROM documents d WHERE d.id = ${id}
      UNION ALL
      SELECT p.id, p.parent_id, up.depth + 1 FROM documents p JOIN up ON p.id = up.parent_id WHERE up.depth < ${MAX_DEPTH}
    )
    SELECT EXISTS (SELECT 1 FROM up WHERE up.id = ${ancestorId}) AS found`);
}

export const SubtreeRow = z.object({ id: z.string(), isArchived: z.boolean(), archiveRootId: z.string().nullable() });
export type SubtreeRow = z.infer<typeof SubtreeRow>;

/** Locks the given documents FOR UPDATE (in id order, so two lockers never deadlock on each other). */
export async function lockDocuments(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`SELECT id FROM documents WHERE id = ANY(${sql.array(ids, 'uuid')}) ORDER BY id FOR UPDATE`);
}

/** The document and all its descendants (archived ones too). */
export function subtreeOf(db: CommonQueryMethods, id: string): Promise<readonly SubtreeRow[]> {
  return db.any(sql.type(SubtreeRow)`
    WITH RECURSIVE down AS (
      SELECT d.id FROM documents d WHERE d.id = ${id}
      UNION
      SELECT c.id FROM documents c JOIN down ON c.parent_id = down.id
    )
    SELECT d.id, d.is_archived AS "isArchived", d.archive_root_id AS "archiveRootId" FROM down JOIN documents d ON d.id = down.id`);
}

export const SiblingRow = z.object({ id: z.string(), isArchived: z.boolean() });

/** Children of `parentId` (roots of the workspace when null), archived ones too, in order. */
export function siblingsOf(
  db: CommonQueryMethods,
  workspaceId: string,
  parentId: string | null,
): Promise<readonly z.infer<typeof SiblingRow>[]> {
  const where = parentId === null ? sql.fragment`parent_id IS NULL` : sql.fragment`parent_id = ${parentId}`;
  return db.any(sql.type(SiblingRow)`
    SELECT id, is_archived AS "isArchived" FROM documents
    WHERE workspace_id = ${workspaceId} AND ${where}
    ORDER BY position, created_at, id`);
}

/** Fresh positions, ascending: each is larger than every position handed out before. */
export function nextPositions(db: CommonQueryMethods, count: number): Promise<readonly number[]> {
  if (count === 0) return Promise.resolve([]);
  return db.anyFirst(
    sql.type(
      z.object({ p: z.number() }),
    )`SELECT nextval('document_position_seq') AS p FROM generate_series(1, ${count}) ORDER BY 1`,
  );
}

/** Sets parent and position of each listed document (the positions in the order given). */
export async function placeDocuments(
  db: CommonQueryMethods,
  parentId: string | null,
  ids: readonly string[],
  positions: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE documents d SET parent_id = ${parentId}, position = p.position
    FROM unnest(${sql.array(ids, 'uuid')}, ${sql.array(positions, 'int8')}) AS p(id, position)
    WHERE d.id = p.id`);
}

export async function touch(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE documents SET updated_at = now() WHERE id = ${id}`);
}

export async function markArchived(db: CommonQueryMethods, ids: readonly string[], rootId: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE documents SET is_archived = true, archive_root_id = ${rootId}, updated_at = now()
    WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

export async function markRestored(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE documents SET is_archived = false, archive_root_id = NULL, updated_at = now()
    WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

export async function deleteDocuments(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`DELETE FROM comment_thread_projection WHERE document_id = ANY(${sql.array(ids, 'uuid')})`);
  await db.query(sql.unsafe`DELETE FROM documents WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

/** Removes every document of a workspace (workspace.deleted). */
export async function purgeWorkspace(db: CommonQueryMethods, workspaceId: string): Promise<number> {
  await db.query(sql.unsafe`
    DELETE FROM comment_thread_projection t USING documents d WHERE t.document_id = d.id AND d.workspace_id = ${workspaceId}`);
  const result = await db.query(sql.unsafe`DELETE FROM documents WHERE workspace_id = ${workspaceId}`);
  return result.rowCount;
}
