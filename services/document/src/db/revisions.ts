import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { EDIT_SOURCES } from '../domain/edit-source.js';
import { iso, shape } from './shape.js';

/**
 * The history rows of migrations/0009_revisions.sql as the revision routes read and change them.
 * The documents triggers write them; here they are listed, read, named and deleted.
 */

const SUMMARY = {
  id: [z.string(), sql.fragment`r.id`],
  documentId: [z.string(), sql.fragment`r.document_id`],
  revision: [z.number(), sql.fragment`r.revision`],
  title: [z.string(), sql.fragment`r.title`],
  name: [z.string().nullable(), sql.fragment`r.name`],
  source: [z.enum(EDIT_SOURCES), sql.fragment`r.source`],
  createdAt: [z.string(), iso(sql.fragment`r.created_at`)],
  createdBy: [z.string(), sql.fragment`r.created_by`],
  contributors: [z.array(z.string()), sql.fragment`r.contributors::text[]`],
  wordCount: [z.number(), sql.fragment`r.word_count`],
} as const;

/** A row as RevisionSummary shows it (users as ids; the presenter names them). */
export const RevisionSummaryRow = shape(SUMMARY);
export type RevisionSummaryRow = z.infer<typeof RevisionSummaryRow.row>;

/** A whole row: the summary and the state it holds. */
export const RevisionRow = shape({
  ...SUMMARY,
  content: [z.string(), sql.fragment`r.content`],
  icon: [z.string().nullable(), sql.fragment`r.icon`],
  coverImageUrl: [z.string().nullable(), sql.fragment`r.cover_image_url`],
});
export type RevisionRow = z.infer<typeof RevisionRow.row>;

/** Newest first: by revision, then (a named copy of the latest state) by time. */
const NEWEST_FIRST = sql.fragment`ORDER BY r.revision DESC, r.created_at DESC, r.id DESC`;

/** One page of a document's history, newest first, and how many rows it has in all. */
export async function revisionPage(
  db: CommonQueryMethods,
  documentId: string,
  offset: number,
  limit: number,
): Promise<{ rows: readonly RevisionSummaryRow[]; total: number }> {
  const rows = await db.any(sql.type(RevisionSummaryRow.row)`
    SELECT ${RevisionSummaryRow.columns} FROM document_revisions r
    WHERE r.document_id = ${documentId} ${NEWEST_FIRST} LIMIT ${limit} OFFSET ${offset}`);
  // A full page or the first one may not be the end; otherwise the rows counted themselves.
  const total =
    rows.length === limit || (rows.length === 0 && offset > 0)
      ? await db.oneFirst(sql.type(z.object({ total: z.number() }))`
          SELECT count(*)::int AS total FROM document_revisions WHERE document_id = ${documentId}`)
      : offset + rows.length;
  return { rows, total };
}

/** A revision of this document (one of another document is not found). */
export function findRevision(
  db: CommonQueryMethods,
  documentId: string,
  revisionId: string,
): Promise<RevisionRow | null> {
  return db.maybeOne(sql.type(RevisionRow.row)`
    SELECT ${RevisionRow.columns} FROM document_revisions r
    WHERE r.id = ${revisionId} AND r.document_id = ${documentId}`);
}

/** What a document holds now, as a revision would: what a diff against `current` compares with. */
export const CurrentState = z.object({
  revision: z.number(),
  title: z.string(),
  content: z.string(),
  icon: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  isArchived: z.boolean(),
});
export type CurrentState = z.infer<typeof CurrentState>;

/** `lock` FOR UPDATE: no edit (and so no trigger writing history) gets between this read and the caller's writes. */
export function currentState(
  db: CommonQueryMethods,
  documentId: string,
  lock?: 'update',
): Promise<CurrentState | null> {
  return db.maybeOne(sql.type(CurrentState)`
    SELECT revision, title, content, icon, cover_image_url AS "coverImageUrl", is_archived AS "isArchived"
    FROM documents WHERE id = ${documentId} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/**
 * POST /revisions {name} (ARCHITECTURE 5.16, issue 26's naming rule), in the caller's transaction:
 * the latest row is named when it holds the current revision and has no name yet; otherwise a
 * copy of the current state becomes a named row by `userId` (the latest row's source). The
 * document's row is locked first, so no edit folds into the latest row between the two steps.
 * Null when the document does not exist.
 */
export async function nameCurrentState(
  tx: CommonQueryMethods,
  documentId: string,
  name: string,
  userId: string,
): Promise<RevisionSummaryRow | null> {
  const doc = await currentState(tx, documentId, 'update');
  if (!doc) return null;
  const named = await tx.maybeOne(sql.type(RevisionSummaryRow.row)`
    UPDATE document_revisions r SET name = ${name}
    WHERE r.id = (
      SELECT l.id FROM document_revisions l WHERE l.document_id = ${documentId}
      ORDER BY l.revision DESC, l.created_at DESC, l.id DESC LIMIT 1
    ) AND r.revision = ${doc.revision} AND r.name IS NULL
    RETURNING ${RevisionSummaryRow.columns}`);
  if (named) return named;
  return tx.one(sql.type(RevisionSummaryRow.row)`
    INSERT INTO document_revisions AS r (document_id, workspace_id, revision, title, content, icon, cover_image_url,
      word_count, name, source, created_by, contributors)
    SELECT d.id, d.workspace_id, d.revision, d.title, d.content, d.icon, d.cover_image_url, d.word_count, ${name},
      coalesce((SELECT l.source FROM document_revisions l WHERE l.document_id = d.id
        ORDER BY l.revision DESC, l.created_at DESC, l.id DESC LIMIT 1), 'EDIT'),
      ${userId}, ARRAY[${userId}::uuid]
    FROM documents d WHERE d.id = ${documentId}
    RETURNING ${RevisionSummaryRow.columns}`);
}

export type RevisionDeleted = 'deleted' | 'missing' | 'current';

/**
 * Deletes a revision of the document, unless it is the only row holding the document's current
 * revision (the history always shows what the document holds now). The document's row is locked
 * first, so an edit cannot make another row current meanwhile.
 */
export async function deleteRevision(
  tx: CommonQueryMethods,
  documentId: string,
  revisionId: string,
): Promise<RevisionDeleted> {
  const doc = await currentState(tx, documentId, 'update');
  if (!doc) return 'missing';
  const row = await tx.maybeOne(sql.type(z.object({ revision: z.number(), holders: z.number() }))`
    SELECT r.revision,
      (SELECT count(*)::int FROM document_revisions h WHERE h.document_id = r.document_id AND h.revision = r.revision) AS holders
    FROM document_revisions r WHERE r.id = ${revisionId} AND r.document_id = ${documentId}`);
  if (!row) return 'missing';
  if (row.revision === doc.revision && row.holders === 1) return 'current';
  await tx.query(sql.unsafe`DELETE FROM document_revisions WHERE id = ${revisionId}`);
  return 'deleted';
}
