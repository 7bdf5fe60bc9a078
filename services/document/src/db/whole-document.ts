import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { iso, shape } from './shape.js';

/**
 * Which document, who created it, where it sits, how it shows and its plain text: what
 * DocumentState starts with too (so every document.* event can name its creator, for search's
 * author filter).
 */
export const PLACED_TEXT = {
  id: [z.string(), sql.fragment`d.id`],
  workspaceId: [z.string(), sql.fragment`d.workspace_id`],
  createdBy: [z.string(), sql.fragment`d.created_by`],
  parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
  title: [z.string(), sql.fragment`d.title`],
  icon: [z.string().nullable(), sql.fragment`d.icon`],
  plainText: [z.string(), sql.fragment`d.plain_text`],
} as const;

/**
 * A document with its whole plain text and what a search index shows beside it (creator, place,
 * icon, archived): what the internal stream and GET /internal/documents/{id}/text send, read by both
 * from this one shape (libs/service-client `WholeDocument` on the caller's side).
 */
export const WholeDocument = shape({
  ...PLACED_TEXT,
  archived: [z.boolean(), sql.fragment`d.is_archived`],
  updatedAt: [z.string(), iso(sql.fragment`d.updated_at`)],
});
export type WholeDocument = z.infer<typeof WholeDocument.row>;

/** One document as the text route sends it, or null when there is none. */
export function findWholeDocument(db: CommonQueryMethods, id: string): Promise<WholeDocument | null> {
  return db.maybeOne(sql.type(WholeDocument.row)`SELECT ${WholeDocument.columns} FROM documents d WHERE d.id = ${id}`);
}
