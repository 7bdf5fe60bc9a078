import { type CommonQueryMethods, sql } from '@wiki/db';

/**
 * The tree lock of a workspace, a transaction-level advisory lock. Changes to the shape of the
 * tree (move, delete, archive, restore) hold it exclusively: a move decides whether it would make
 * a cycle by reading the tree, so no two of them may decide at once, whatever they read before.
 * Creating a document does not take it (creations must run side by side): it share-locks the
 * parent row instead, and archive and delete lock their subtree row by row (see lockSubtree).
 */
const key = (workspaceId: string) => sql.fragment`hashtextextended(${`document-tree:${workspaceId}`}, 0)`;

export async function lockTreeExclusive(db: CommonQueryMethods, workspaceId: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(${key(workspaceId)})`);
}
