import { workspaceIsOpen } from '@wiki/auth';
import { type CommonQueryMethods, sql, z } from '@wiki/db';

/**
 * Reads for unauthenticated readers. Every query filters on "published and not archived" itself,
 * so nothing else can reach a public response by mistake; a document is public only while its
 * workspace is neither archived nor deleted either.
 */
const publicChildCount = sql.fragment`
  (SELECT count(*)::int FROM documents c WHERE c.parent_id = d.id AND c.is_published AND NOT c.is_archived)`;

export const PublicDocumentRow = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  icon: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  parentId: z.string().nullable(),
  wordCount: z.number(),
  updatedAt: z.string(),
  childCount: z.number(),
});
export type PublicDocumentRow = z.infer<typeof PublicDocumentRow>;

/** A published, not archived document; parentId only when the parent is public too. */
export function findPublicDocument(db: CommonQueryMethods, id: string): Promise<PublicDocumentRow | null> {
  return db.maybeOne(sql.type(PublicDocumentRow)`
    SELECT d.id, d.title, d.content, d.icon, d.cover_image_url AS "coverImageUrl",
      CASE WHEN p.is_published AND NOT p.is_archived THEN p.id END AS "parentId",
      d.word_count AS "wordCount", d.updated_at AS "updatedAt", ${publicChildCount} AS "childCount"
    FROM documents d LEFT JOIN documents p ON p.id = d.parent_id
    WHERE d.id = ${id} AND d.is_published AND NOT d.is_archived AND ${workspaceIsOpen('d.workspace_id')}`);
}

export const PublicListRow = z.object({
  id: z.string(),
  title: z.string(),
  icon: z.string().nullable(),
  parentId: z.string().nullable(),
  childCount: z.number(),
});
export type PublicListRow = z.infer<typeof PublicListRow>;

/** Published, not archived children of a public document (none when it is not public). */
export function listPublicChildren(db: CommonQueryMethods, id: string): Promise<readonly PublicListRow[]> {
  return db.any(sql.type(PublicListRow)`
    SELECT d.id, d.title, d.icon, d.parent_id AS "parentId", ${publicChildCount} AS "childCount"
    FROM documents d JOIN documents p ON p.id = d.parent_id
    WHERE d.parent_id = ${id} AND d.is_published AND NOT d.is_archived AND p.is_published AND NOT p.is_archived
    ORDER BY d.position, d.created_at, d.id`);
}

export function isPublicDocument(db: CommonQueryMethods, id: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ found: z.boolean() }))`
    SELECT EXISTS (SELECT 1 FROM documents d WHERE d.id = ${id} AND d.is_published AND NOT d.is_archived AND ${workspaceIsOpen('d.workspace_id')}) AS found`);
}
