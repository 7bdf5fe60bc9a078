import pg from 'pg';
import type { DocumentDetail } from './documents.js';

/**
 * The hottest read (GET /documents/:id) on a plain node-postgres pool with a named prepared
 * statement: Postgres parses and plans it once per connection instead of on every request, which
 * slonik (no named statements) cannot do. The row shape is fixed by the SQL below, so it is not
 * run through zod; timestamps are formatted as ISO 8601 by Postgres (the same text the shared pool's
 * parser produces) and counts are int4, so node-postgres' default parsers give the API's types.
 * Everything else stays on the slonik pool.
 */
export interface DocumentReads {
  findDetail(id: string): Promise<DocumentDetail | null>;
  end(): Promise<void>;
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const FIND_DETAIL = {
  // The name is per connection; change it whenever the text changes.
  name: 'document_detail_v1',
  text: `
  SELECT d.id, d.workspace_id AS "workspaceId", d.parent_id AS "parentId", d.title, d.content, d.excerpt,
    d.word_count AS "wordCount", d.icon, d.cover_image_url AS "coverImageUrl", d.is_template AS "isTemplate",
    d.is_archived AS "isArchived", d.is_published AS "isPublished", d.owner_id AS "ownerId",
    d.created_by AS "createdBy", d.last_edited_by AS "lastEditedBy",
    ${iso('d.created_at')} AS "createdAt", ${iso('d.updated_at')} AS "updatedAt",
    (SELECT count(*)::int FROM documents c WHERE c.parent_id = d.id AND NOT c.is_archived) AS "childCount",
    (SELECT count(*)::int FROM comment_threads t WHERE t.document_id = d.id AND t.is_open) AS "openCommentCount",
    cu.name AS "createdByName", cu.avatar_url AS "createdByAvatarUrl",
    eu.name AS "lastEditedByName", eu.avatar_url AS "lastEditedByAvatarUrl"
  FROM documents d
  LEFT JOIN users cu ON cu.id = d.created_by
  LEFT JOIN users eu ON eu.id = d.last_edited_by
  WHERE d.id = $1`,
};

/** Same statement timeout as the shared pool (libs/db). */
const STATEMENT_TIMEOUT_MS = 30_000;

export function createDocumentReads(connectionString: string, logger: { warn(obj: object, msg: string): void }, maxConnections = 10): DocumentReads {
  const pool = new pg.Pool({ connectionString, max: maxConnections, statement_timeout: STATEMENT_TIMEOUT_MS });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err }, 'idle read connection failed'));
  return {
    async findDetail(id) {
      const result = await pool.query<DocumentDetail>({ ...FIND_DETAIL, values: [id] });
      return result.rows[0] ?? null;
    },
    end: () => pool.end(),
  };
}
