import { type CommonQueryMethods, sql, z } from '@wiki/db';
import type { Extraction } from '../commands/extract-text.js';

export const AttachmentText = z.object({
  status: z.enum(['text', 'failed']),
  text: z.string(),
  truncated: z.boolean(),
});
export type AttachmentText = z.infer<typeof AttachmentText>;

/** Keeps what the extraction gave; false when the attachment already had its text (a redelivery). */
export async function saveText(db: CommonQueryMethods, attachmentId: string, extraction: Extraction): Promise<boolean> {
  const [status, text, truncated, reason] =
    extraction.outcome === 'text'
      ? (['text', extraction.text, extraction.truncated, null] as const)
      : (['failed', '', false, extraction.reason] as const);
  const result = await db.query(sql.unsafe`
    INSERT INTO attachment_texts (attachment_id, status, text, truncated, reason)
    VALUES (${attachmentId}, ${status}, ${text}, ${truncated}, ${reason})
    ON CONFLICT (attachment_id) DO NOTHING`);
  return result.rowCount === 1;
}

export function hasText(db: CommonQueryMethods, attachmentId: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM attachment_texts WHERE attachment_id = ${attachmentId}`);
}

export function findText(db: CommonQueryMethods, attachmentId: string): Promise<AttachmentText | null> {
  return db.maybeOne(sql.type(AttachmentText)`
    SELECT status, text, truncated FROM attachment_texts WHERE attachment_id = ${attachmentId}`);
}

export const ExtractedText = z.object({
  id: z.string(),
  documentId: z.string(),
  workspaceId: z.string(),
  fileName: z.string(),
  text: z.string(),
  truncated: z.boolean(),
});
export type ExtractedText = z.infer<typeof ExtractedText>;

export interface TextPage {
  /** One workspace's attachments, or every workspace's. */
  workspaceId?: string;
  /** Exclusive: the page starts after this attachment id (keyset: a page costs the same wherever it is). */
  after?: string;
  limit: number;
}

/**
 * The next attachments that have text (status 'text'; a failed extraction has none) in id order,
 * for rebuilding a search index. A deleted attachment's text went with its row (ON DELETE CASCADE).
 */
export function textPage(db: CommonQueryMethods, page: TextPage): Promise<readonly ExtractedText[]> {
  const conditions = [sql.fragment`t.status = 'text'`];
  if (page.workspaceId) conditions.push(sql.fragment`a.workspace_id = ${page.workspaceId}`);
  if (page.after) conditions.push(sql.fragment`a.id > ${page.after}`);
  return db.any(sql.type(ExtractedText)`
    SELECT a.id, a.document_id AS "documentId", a.workspace_id AS "workspaceId", a.file_name AS "fileName",
      t.text, t.truncated
    FROM attachments a JOIN attachment_texts t ON t.attachment_id = a.id
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY a.id
    LIMIT ${page.limit}`);
}
