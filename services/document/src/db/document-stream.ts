import { type CommonQueryMethods, sql } from '@wiki/db';
import { WholeDocument } from './whole-document.js';

export interface StreamPage {
  /** One workspace's documents, or every workspace's. */
  workspaceId?: string;
  /** Exclusive: the page starts after this id (keyset, so a page costs the same wherever it is). */
  after?: string;
  /** Rows at most. */
  rows: number;
  /**
   * Text bytes at most, so that a page of long documents (up to 2 MiB of content each) stays
   * small: rows are taken while the text before them is under the budget, so a page always holds
   * at least one row and at most the budget plus one document's text.
   */
  textBytes: number;
}

/**
 * The next page in id order. The window over the candidate ids reads only the texts' sizes
 * (`octet_length` asks the TOAST header, it does not read the text), and only the rows kept are
 * read whole. Deleted documents are gone from the table, so they are simply absent.
 */
export function documentPage(db: CommonQueryMethods, page: StreamPage): Promise<readonly WholeDocument[]> {
  const conditions = [sql.fragment`TRUE`];
  if (page.workspaceId) conditions.push(sql.fragment`workspace_id = ${page.workspaceId}`);
  if (page.after) conditions.push(sql.fragment`id > ${page.after}`);
  return db.any(sql.type(WholeDocument.row)`
    WITH candidates AS (
      SELECT id, sum(octet_length(plain_text)) OVER (ORDER BY id) - octet_length(plain_text) AS text_before
        FROM documents
       WHERE ${sql.join(conditions, sql.fragment` AND `)}
       ORDER BY id
       LIMIT ${page.rows}
    )
    SELECT ${WholeDocument.columns}
      FROM candidates c JOIN documents d ON d.id = c.id
     WHERE c.text_before < ${page.textBytes}
     ORDER BY d.id`);
}
