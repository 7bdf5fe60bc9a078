import { createBatcher, createPreparedPool } from '@wiki/db';
import { type EventEnvelope, insertEnvelopesSql } from '@wiki/events';
import { DocumentDetail, ListItem, type NewDocument } from './documents.js';
import {
  type EditedRow,
  editRow,
  editValues,
  type FieldsEdit,
  type FieldsUpdated,
  outcomeOf,
  UPDATE_FIELDS,
  UPDATE_ONE,
} from './field-edits.js';
import { oneAtATimePerKey } from './one-at-a-time.js';

/**
 * The hottest reads (GET /documents/:id, the lists of roots and children, the version lists are checked against) and write (POST /documents) on a plain node-postgres pool
 * with named prepared statements: Postgres parses and plans each once per connection instead of on
 * every request, which slonik (no named statements) cannot do. Both answer the DocumentDetail shape
 * (db/documents.ts): its rows are not run through zod, as its timestamps are formatted as ISO 8601
 * by Postgres (the same text the shared pool's parser produces) and its counts are int4, so
 * node-postgres' default parsers give the API's types. Everything else stays on the slonik pool.
 */
export interface PreparedStatements {
  findDetail(id: string): Promise<DocumentDetail | null>;
  /** Visible documents directly under `parentId` (the workspace's roots when null), in sibling order. */
  listChildren(workspaceId: string, parentId: string | null): Promise<ListItem[]>;
  /** The workspace's version (migrations/0007_tree_versions.sql); 0 before its first document. */
  workspaceVersion(workspaceId: string): Promise<number>;
  /**
   * The edit rule (field-edits.ts): the document as a GET reads it after the change, or why nothing changed.
   * One document's edits reach Postgres one at a time from this replica, those that waited as one
   * transaction (one-at-a-time.ts).
   */
  updateFields(edit: FieldsEdit): Promise<FieldsUpdated>;
  /** See INSERT_DOCUMENTS. Answers the inserted documents by id; a document missing there was not inserted. */
  insertDocuments(documents: readonly NewDocumentWithEvent[]): Promise<Map<string, DocumentDetail>>;
  end(): Promise<void>;
}

/** A document to insert and its document.created envelope (data.updatedAt is stamped on insert). */
export interface NewDocumentWithEvent {
  doc: NewDocument & { id: string };
  envelope: EventEnvelope;
}

const detail = DocumentDetail.text;

const FIND_DETAIL = {
  // The name is per connection; change it whenever the text changes.
  name: 'document_detail_v6',
  text: `SELECT ${detail.columns} FROM documents d ${detail.joins} WHERE d.id = $1`,
};

const listItem = ListItem.text;
// Two statements rather than `parent_id IS NOT DISTINCT FROM $2`, which no index serves.
const LIST_ROOTS = {
  name: 'list_roots_v2',
  text: `SELECT ${listItem.columns} FROM documents d ${listItem.joins}
    WHERE d.workspace_id = $1 AND d.parent_id IS NULL AND NOT d.is_archived
    ORDER BY d.position, d.created_at, d.id`,
};
const LIST_CHILDREN = {
  name: 'list_children_v2',
  text: `SELECT ${listItem.columns} FROM documents d ${listItem.joins}
    WHERE d.workspace_id = $1 AND d.parent_id = $2 AND NOT d.is_archived
    ORDER BY d.position, d.created_at, d.id`,
};

/** What a remembered list is checked against (queries/list-answers.ts): one index range of at most 64 rows. */
const WORKSPACE_VERSION = {
  name: 'workspace_version_v2',
  text: 'SELECT coalesce(sum(version), 0)::bigint AS version FROM workspace_tree_versions WHERE workspace_id = $1',
};

/**
 * Inserts documents and the outbox rows of their events in ONE statement, for any number of them
 * (the rows come in as arrays): a single statement is its own transaction, so each event is written
 * if and only if its document is, and a whole batch costs one round trip and one commit. It answers
 * each inserted document as the GET reads it (the same DocumentDetail columns, over the inserted
 * rows: the statement does not see its own inserts in the tables, so the new document's counts
 * are 0, as they are), and each event gets that answer's updatedAt as data.updatedAt.
 *
 * A document with a parent is only inserted while that parent exists in the same workspace and is
 * not archived, and the parents are share-locked until the statement ends: an archive or delete of
 * a parent's subtree waits for this insert and then sees the new child (see lockSubtree). Positions
 * come from the sequence in input order, so siblings created together keep the order they came in.
 */
const INSERT_DOCUMENTS = {
  // The rows arrive as one JSON array (JSON.stringify is native; array literals are escaped in JS).
  name: 'insert_documents_v6',
  text: `
  WITH input AS MATERIALIZED (
    SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (id uuid, workspace_id uuid, parent_id uuid, title text,
        content text, plain_text text, excerpt text, word_count int, icon text, cover_image_url text, user_id uuid,
        envelope jsonb))
      WITH ORDINALITY AS i(id, workspace_id, parent_id, title, content, plain_text, excerpt, word_count, icon,
        cover_image_url, user_id, envelope, ord)
  ),
  parents AS MATERIALIZED (
    SELECT p.id, p.workspace_id FROM documents p
    WHERE p.id IN (SELECT parent_id FROM input) AND NOT p.is_archived
    FOR SHARE
  ),
  doc AS (
    INSERT INTO documents (id, workspace_id, parent_id, title, content, plain_text, excerpt, word_count, icon,
      cover_image_url, owner_id, created_by, last_edited_by)
    SELECT i.id, i.workspace_id, i.parent_id, i.title, i.content, i.plain_text, i.excerpt, i.word_count, i.icon,
      i.cover_image_url, i.user_id, i.user_id, i.user_id
    FROM input i
    WHERE i.parent_id IS NULL OR EXISTS (SELECT 1 FROM parents p WHERE p.id = i.parent_id AND p.workspace_id = i.workspace_id)
    ORDER BY i.ord
    RETURNING *
  ),
  detail AS MATERIALIZED (
    SELECT ${detail.columns} FROM doc d ${detail.joins}
  ),
  event AS (${insertEnvelopesSql(`
    SELECT jsonb_set(i.envelope, '{data,updatedAt}', to_jsonb(detail."updatedAt"))
    FROM detail JOIN input i ON i.id = detail.id
    ORDER BY i.ord`)}
  )
  SELECT * FROM detail`,
};

export function createPreparedStatements(
  connectionString: string,
  logger: { warn(obj: object, msg: string): void },
  maxConnections = 10,
): PreparedStatements {
  const pool = createPreparedPool(connectionString, logger, maxConnections);
  // Edits of different documents that arrive while others are written go together, as one
  // statement (group commit).
  const edits = createBatcher<FieldsEdit, FieldsUpdated>(
    async (batch) => {
      const input = batch.length === 1 ? editRow(batch[0]) : batch.map(editRow);
      const result = await pool.query<EditedRow>({
        ...(batch.length === 1 ? UPDATE_ONE : UPDATE_FIELDS),
        values: editValues(input),
      });
      return result.rows.map(outcomeOf);
    },
    // A batch is one message to Postgres: capped by count and by text (content JSON and its plain text).
    { maxItems: 100, maxWeight: 4 * 1024 * 1024, weightOf: (e) => (e.fields.content?.json.length ?? 0) * 2 },
  );
  /**
   * Edits of ONE document that waited for each other: one statement each (an UPDATE changes a row
   * once per statement), in order, in one transaction on one connection. Each is still its own
   * revision, event and answer (each statement sees the ones before it, so If-Match holds), but
   * the burst pays one commit and no wait between edits; nobody is answered before the commit.
   */
  async function editsInOneTransaction(batch: FieldsEdit[]): Promise<FieldsUpdated[]> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const outcomes: FieldsUpdated[] = [];
      for (const edit of batch) {
        const result = await client.query<EditedRow>({ ...UPDATE_ONE, values: editValues(editRow(edit)) });
        outcomes.push(outcomeOf(result.rows[0]));
      }
      await client.query('COMMIT');
      return outcomes;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      // A connection whose rollback failed is in an unknown state: the pool drops it.
      client.release(broken);
    }
  }
  // One document's edits one at a time (one-at-a-time.ts): the first through the batcher above,
  // those that arrived meanwhile together. 50: a burst's transaction stays short.
  const editsOfOneDocument = oneAtATimePerKey<FieldsEdit, FieldsUpdated>(
    (batch) =>
      batch.length === 1 ? edits.submit(batch[0]).then((outcome) => [outcome]) : editsInOneTransaction(batch),
    50,
  );
  return {
    async findDetail(id) {
      const result = await pool.query<DocumentDetail>({ ...FIND_DETAIL, values: [id] });
      return result.rows[0] ?? null;
    },
    async listChildren(workspaceId, parentId) {
      const result =
        parentId === null
          ? await pool.query<ListItem>({ ...LIST_ROOTS, values: [workspaceId] })
          : await pool.query<ListItem>({ ...LIST_CHILDREN, values: [workspaceId, parentId] });
      return result.rows;
    },
    async workspaceVersion(workspaceId) {
      const result = await pool.query<{ version: string }>({ ...WORKSPACE_VERSION, values: [workspaceId] });
      // bigint arrives as text; a version stays far below 2^53.
      return Number(result.rows[0]?.version ?? 0);
    },
    updateFields(edit) {
      return editsOfOneDocument(edit.id, edit);
    },
    async insertDocuments(documents) {
      const rows = documents.map(({ doc, envelope }) => ({
        id: doc.id,
        workspace_id: doc.workspaceId,
        parent_id: doc.parentId,
        title: doc.title,
        content: doc.content,
        plain_text: doc.plainText,
        excerpt: doc.excerpt,
        word_count: doc.wordCount,
        icon: doc.icon,
        cover_image_url: doc.coverImageUrl,
        user_id: doc.userId,
        envelope,
      }));
      const result = await pool.query<DocumentDetail>({ ...INSERT_DOCUMENTS, values: [JSON.stringify(rows)] });
      return new Map(result.rows.map((row) => [row.id, row]));
    },
    end: () => pool.end(),
  };
}
