import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { workspaceIsOpen } from '@wiki/projections';
import { publicChildCount } from './documents.js';
import { shape } from './shape.js';

/**
 * Reads for unauthenticated readers. Every query filters on "published and not archived" itself,
 * so nothing else can reach a public response by mistake; a document is public only while its
 * workspace is neither archived nor deleted either.
 */

/** A public document (PublicDocumentResponse): its parentId only when the parent `p` is public too. */
export const PublicDocumentRow = shape(
  {
    id: [z.string(), sql.fragment`d.id`],
    title: [z.string(), sql.fragment`d.title`],
    content: [z.string(), sql.fragment`d.content`],
    icon: [z.string().nullable(), sql.fragment`d.icon`],
    coverImageUrl: [z.string().nullable(), sql.fragment`d.cover_image_url`],
    parentId: [z.string().nullable(), sql.fragment`CASE WHEN p.is_published AND NOT p.is_archived THEN p.id END`],
    wordCount: [z.number(), sql.fragment`d.word_count`],
    updatedAt: [z.string(), sql.fragment`d.updated_at`],
    childCount: [z.number(), publicChildCount],
  },
  sql.fragment`LEFT JOIN documents p ON p.id = d.parent_id`,
);
export type PublicDocumentRow = z.infer<typeof PublicDocumentRow.row>;

/** A published, not archived document; parentId only when the parent is public too. */
export function findPublicDocument(db: CommonQueryMethods, id: string): Promise<PublicDocumentRow | null> {
  return db.maybeOne(sql.type(PublicDocumentRow.row)`
    SELECT ${PublicDocumentRow.columns}
    FROM documents d ${PublicDocumentRow.joins}
    WHERE d.id = ${id} AND d.is_published AND NOT d.is_archived AND ${workspaceIsOpen('d.workspace_id')}`);
}

/** A public document in a list (PublicDocumentListResponse). */
export const PublicListRow = shape({
  id: [z.string(), sql.fragment`d.id`],
  title: [z.string(), sql.fragment`d.title`],
  icon: [z.string().nullable(), sql.fragment`d.icon`],
  parentId: [z.string().nullable(), sql.fragment`d.parent_id`],
  childCount: [z.number(), publicChildCount],
});
export type PublicListRow = z.infer<typeof PublicListRow.row>;

/** Published, not archived children of a public document (none when it is not public). */
export function listPublicChildren(db: CommonQueryMethods, id: string): Promise<readonly PublicListRow[]> {
  return db.any(sql.type(PublicListRow.row)`
    SELECT ${PublicListRow.columns}
    FROM documents d JOIN documents p ON p.id = d.parent_id
    WHERE d.parent_id = ${id} AND d.is_published AND NOT d.is_archived AND p.is_published AND NOT p.is_archived
    ORDER BY d.position, d.created_at, d.id`);
}

export function isPublicDocument(db: CommonQueryMethods, id: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ found: z.boolean() }))`
    SELECT EXISTS (SELECT 1 FROM documents d WHERE d.id = ${id} AND d.is_published AND NOT d.is_archived AND ${workspaceIsOpen('d.workspace_id')}) AS found`);
}
