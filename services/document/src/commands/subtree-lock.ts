import type { CommonQueryMethods } from '@wiki/db';
import { lockDocuments, type SubtreeRow, subtreeOf } from '../db/documents.js';

/**
 * The document's whole subtree, every row of it locked FOR UPDATE. Creating a document share-locks
 * its parent row without taking the tree lock (so creations run side by side), so a creation under
 * some descendant may be committing while the subtree is read: locking each row waits for such a
 * creation, and reading the subtree again finds its child. This repeats until nothing new turns
 * up; from then on a creation under any locked row waits for this transaction and then sees the
 * archived (or deleted) parent and is refused.
 */
export async function lockSubtree(tx: CommonQueryMethods, rootId: string): Promise<readonly SubtreeRow[]> {
  const locked = new Set<string>();
  for (;;) {
    const rows = await subtreeOf(tx, rootId);
    const fresh = rows.filter((r) => !locked.has(r.id)).map((r) => r.id);
    if (fresh.length === 0) return rows;
    await lockDocuments(tx, fresh);
    for (const id of fresh) locked.add(id);
  }
}
