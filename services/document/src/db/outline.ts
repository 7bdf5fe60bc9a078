import { type CommonQueryMethods, sql, z } from '@wiki/db';

const OutlineRow = z.object({ id: z.string(), parentId: z.string().nullable(), title: z.string() });
export type OutlineRow = z.infer<typeof OutlineRow>;

/** The workspace's documents that are not archived, in sibling order (positions come from one sequence). */
export async function workspaceOutline(db: CommonQueryMethods, workspaceId: string): Promise<readonly OutlineRow[]> {
  return db.any(sql.type(OutlineRow)`
    SELECT id, parent_id AS "parentId", title FROM documents
    WHERE workspace_id = ${workspaceId} AND NOT is_archived
    ORDER BY position`);
}
