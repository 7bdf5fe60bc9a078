import type { CommonQueryMethods } from '@wiki/db';
import {
  type DocumentState,
  findState,
  markArchived,
  markRestored,
  nextPositions,
  placeDocuments,
} from '../db/documents.js';
import { lockSubtree } from './subtree-lock.js';

/**
 * Archiving hides a document with its whole subtree: every visible descendant is marked archived
 * with the document as its archive root. Restoring a document brings back what the same archiving
 * hid (descendants archived on their own before stay archived). A restored document whose parent
 * is still archived becomes a root document, so that a visible document never hangs under a
 * hidden one. Callers hold the workspace's tree lock and the document's row lock.
 */

/** Returns the ids this archiving hid (empty when the document was archived already). */
export async function archiveSubtree(tx: CommonQueryMethods, doc: DocumentState): Promise<string[]> {
  if (doc.isArchived) return [];
  const subtree = await lockSubtree(tx, doc.id);
  const ids = subtree.filter((r) => !r.isArchived).map((r) => r.id);
  await markArchived(tx, ids, doc.id);
  return ids;
}

export interface Restored {
  ids: string[];
  /** The parent it had when it was put back at the root because that parent is still archived. */
  rerootedFrom: string | null;
}

export async function restoreSubtree(tx: CommonQueryMethods, doc: DocumentState): Promise<Restored> {
  if (!doc.isArchived) return { ids: [], rerootedFrom: null };
  const root = doc.archiveRootId ?? doc.id;
  const subtree = await lockSubtree(tx, doc.id);
  const ids = subtree.filter((r) => r.id === doc.id || (r.isArchived && r.archiveRootId === root)).map((r) => r.id);
  await markRestored(tx, ids);
  let rerootedFrom: string | null = null;
  if (doc.parentId !== null) {
    const parent = await findState(tx, doc.parentId);
    if (!parent || parent.isArchived) {
      await placeDocuments(tx, null, [doc.id], await nextPositions(tx, 1));
      rerootedFrom = doc.parentId;
    }
  }
  return { ids, rerootedFrom };
}
