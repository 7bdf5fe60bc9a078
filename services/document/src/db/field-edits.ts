import { type CommonQueryMethods, sql } from '@wiki/db';
import { EVENT_TEXT_MAX_BYTES, type EventEnvelope, insertEnvelopesSql, noteEventsWritten } from '@wiki/events';
import type { EditSource } from '../domain/edit-source.js';
import { DocumentDetail } from './documents.js';

/**
 * The document edit rule (PUT /documents/{id}'s fields), written once as one SQL statement: the
 * archived check, the change, the content revision, the answer and the document.updated event.
 * It runs alone on the prepared pool (db/prepared-statements.ts, the everyday edit) or inside a
 * transaction that also archives or restores (editFieldsInTx): the same text either way, so the
 * two cannot disagree.
 */

/** The fields a PUT changes without archiving or restoring; an absent field stays as it is. */
export interface FieldsUpdate {
  title?: string;
  content?: { json: string; plainText: string; excerpt: string; wordCount: number };
  icon?: string | null;
  coverImageUrl?: string | null;
}

export type FieldsUpdated =
  | { outcome: 'updated'; document: DocumentDetail }
  | { outcome: 'archived' } // read-only until restored: nothing changed
  | { outcome: 'stale'; current: number } // not at the expected revision: nothing changed
  | { outcome: 'missing' };

/** One PUT's edit; `template` is its document.updated envelope, whose `data` the statement fills. */
export interface FieldsEdit {
  id: string;
  actorId: string;
  fields: FieldsUpdate;
  template: EventEnvelope;
  /** Where the change comes from, kept on its revision (default EDIT). */
  source?: EditSource;
  /** Whose changes it holds when not just the actor's (a collab save of several editors). */
  authors?: string[];
  /** The revision the writer saw (If-Match, lastRevision): anything else changes nothing ('stale'). */
  expectedRevision?: number;
}

/** An edit as a row of the statement's input (absent fields keep their value). */
export function editRow({ id, actorId, fields, template, source, authors, expectedRevision }: FieldsEdit) {
  const content = fields.content;
  return {
    id,
    actor_id: actorId,
    edit_source: source ?? null,
    edit_authors: authors && authors.length > 0 ? authors : null,
    expected_revision: expectedRevision ?? null,
    has_title: fields.title !== undefined,
    title: fields.title ?? null,
    has_content: content !== undefined,
    content: content?.json ?? null,
    plain_text: content?.plainText ?? null,
    excerpt: content?.excerpt ?? null,
    word_count: content?.wordCount ?? null,
    has_icon: fields.icon !== undefined,
    icon: fields.icon ?? null,
    has_cover: fields.coverImageUrl !== undefined,
    cover_image_url: fields.coverImageUrl ?? null,
    template,
  };
}

/**
 * A row the statement answers: wasArchived null when the document does not exist, the detail's
 * fields null when it was not changed; currentRevision is the revision before the edit.
 */
export type EditedRow =
  | (DocumentDetail & { wasArchived: boolean; currentRevision: number })
  | { wasArchived: boolean; currentRevision: number; id: null }
  | { wasArchived: null };

export function outcomeOf(row: EditedRow): FieldsUpdated {
  if (row.wasArchived === null) return { outcome: 'missing' };
  if (row.wasArchived) return { outcome: 'archived' };
  if (row.id === null) return { outcome: 'stale', current: row.currentRevision };
  const { wasArchived: _, currentRevision: __, ...document } = row;
  return { outcome: 'updated', document };
}

const detail = DocumentDetail.text;

/**
 * PUT /documents/{id} without isArchived, for one document or several edited at the same time
 * (group commit), in ONE statement (its own transaction): each row is locked, changed unless
 * archived or not at the revision its writer expected (the check reads the locked row, so of two
 * writers expecting one revision exactly one changes it), and answered as the GET reads it, and its document.updated event is written with it.
 * The rows are locked in id order, so two such statements never wait on each other in a cycle. The
 * event's data is built here from the changed row (each edit's template holds the envelope's id,
 * time, actor and `data.changed`). Its plain text is cut to the events' cap: whole when its JSON
 * fits (the usual case), else cut to a sixth of the cap in characters (a character costs at most
 * 6 bytes of JSON) and flagged, as the contract lets a consumer fetch the whole text. A content
 * change also bumps content_revision, which the collaboration server watches. The edit's source and
 * authors go to the history trigger (migrations/0009_revisions.sql), which bumps `revision`, writes
 * the revision row and clears them. One row per edit, in input order: wasArchived null when the
 * document does not exist.
 *
 * The edits of one statement are of different documents (one-at-a-time.ts queues a document's
 * edits before they get here): an UPDATE changes a row once, however many input rows name it.
 * $1: the edit (or the edits, as a JSON array); $2: the text cap (EVENT_TEXT_MAX_BYTES).
 */
const updateFields = (name: string, input: string) => ({
  name,
  text: `
  WITH input AS MATERIALIZED (${input}),
  cur AS MATERIALIZED (
    SELECT id, is_archived, revision FROM documents WHERE id IN (SELECT id FROM input) ORDER BY id FOR UPDATE
  ),
  doc AS (
    UPDATE documents d SET
      title = CASE WHEN i.has_title THEN i.title ELSE d.title END,
      content = CASE WHEN i.has_content THEN i.content ELSE d.content END,
      plain_text = CASE WHEN i.has_content THEN i.plain_text ELSE d.plain_text END,
      excerpt = CASE WHEN i.has_content THEN i.excerpt ELSE d.excerpt END,
      word_count = CASE WHEN i.has_content THEN i.word_count ELSE d.word_count END,
      content_revision = CASE WHEN i.has_content THEN d.content_revision + 1 ELSE d.content_revision END,
      icon = CASE WHEN i.has_icon THEN i.icon ELSE d.icon END,
      cover_image_url = CASE WHEN i.has_cover THEN i.cover_image_url ELSE d.cover_image_url END,
      last_edited_by = i.actor_id,
      updated_at = now(),
      edit_source = i.edit_source,
      edit_authors = i.edit_authors,
      content_kept = NOT i.has_content
    FROM cur JOIN input i ON i.id = cur.id
    WHERE d.id = cur.id AND NOT cur.is_archived
      AND (i.expected_revision IS NULL OR cur.revision = i.expected_revision)
    RETURNING d.*
  ),
  detail AS MATERIALIZED (
    SELECT ${detail.columns} FROM doc d ${detail.joins}
  ),
  event AS (${insertEnvelopesSql(`
    SELECT jsonb_set(i.template, '{data}', jsonb_build_object(
      'id', d.id, 'workspaceId', d.workspace_id, 'createdBy', d.created_by, 'parentId', d.parent_id, 'title', d.title, 'icon', d.icon,
      'isArchived', d.is_archived, 'isPublished', d.is_published, 'isTemplate', d.is_template,
      'updatedAt', detail."updatedAt", 'revision', d.revision,
      'plainText', CASE WHEN t.whole THEN d.plain_text ELSE left(d.plain_text, $2::int / 6) END,
      'plainTextTruncated', NOT t.whole,
      'changed', i.template->'data'->'changed'))
    FROM doc d JOIN detail ON detail.id = d.id JOIN input i ON i.id = d.id
    CROSS JOIN LATERAL (
      SELECT length(d.plain_text) * 6 <= $2::int OR octet_length(to_json(d.plain_text)::text) - 2 <= $2::int AS whole
    ) t
    ORDER BY i.ord`)}
  )
  SELECT cur.is_archived AS "wasArchived", cur.revision AS "currentRevision", detail.*
  FROM input i LEFT JOIN cur ON cur.id = i.id LEFT JOIN detail ON detail.id = i.id
  ORDER BY i.ord`,
});

/** An edit's columns (editRow); the input is one JSON object per edit. */
const EDIT_COLUMNS = `id uuid, actor_id uuid, edit_source text, edit_authors uuid[], expected_revision int, has_title bool, title text, has_content bool, content text, plain_text text,
  excerpt text, word_count int, has_icon bool, icon text, has_cover bool, cover_image_url text, template jsonb`;
export const UPDATE_FIELDS = updateFields(
  'update_fields_v5',
  `SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (${EDIT_COLUMNS}))
    WITH ORDINALITY AS i(id, actor_id, edit_source, edit_authors, expected_revision, has_title, title, has_content, content, plain_text, excerpt, word_count,
      has_icon, icon, has_cover, cover_image_url, template, ord)`,
);
/**
 * A lone edit (the usual case when the load is light, every edit of a document edited in a burst,
 * and the edit inside a transaction): the same statement over one record, which the planner knows
 * is one row (it assumes 100 for a recordset, and plans the joins for that).
 */
export const UPDATE_ONE = updateFields(
  'update_one_v3',
  `SELECT *, 1::bigint AS ord FROM json_to_record($1::json) AS i(${EDIT_COLUMNS})`,
);

/** The statement's parameters: the edit (or edits), and the text cap. */
export const editValues = (input: unknown): [string, number] => [JSON.stringify(input), EVENT_TEXT_MAX_BYTES];

/**
 * The same edit inside the caller's transaction (an archive or restore around it): UPDATE_ONE's
 * text, run through slonik. Its event is written with the transaction, which wakes the relay when
 * it commits.
 */
export async function editFieldsInTx(tx: CommonQueryMethods, edit: FieldsEdit): Promise<FieldsUpdated> {
  const row = (await tx.one(withPositionalValues(UPDATE_ONE.text, editValues(editRow(edit))))) as EditedRow;
  const result = outcomeOf(row);
  if (result.outcome === 'updated') noteEventsWritten(tx);
  return result;
}

/**
 * A statement written for node-postgres ($1, $2, … may repeat) as a slonik query with those values:
 * slonik numbers the parameters of a template itself, so the text is cut at each $n and the pieces
 * are passed as the template's strings, each $n as the value between them.
 */
function withPositionalValues(text: string, values: readonly (string | number)[]) {
  const pieces = text.split(/\$(\d+)/);
  const strings = pieces.filter((_, i) => i % 2 === 0);
  const bound = pieces.filter((_, i) => i % 2 === 1).map((n) => values[Number(n) - 1]);
  const template = Object.assign([...strings], { raw: Object.freeze([...strings]) });
  return sql.unsafe(template as unknown as TemplateStringsArray, ...bound);
}
