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
