import type { DocumentContext } from '../context.js';
import {
  type DocumentState,
  deleteDocuments,
  lockDocuments,
  nextPositions,
  placeDocuments,
  stateOf,
} from '../db/documents.js';
import { childrenOutside, documentsOfImport, type ImportedDocument, lockImport } from '../db/imports.js';
import { emitDeleted, emitMoved } from '../events/producers.js';
import { lockTreeExclusive } from './tree-lock.js';

export interface RollbackAnswer {
  /** Every document removed: all that the import had made and that still existed. */
  documentIds: string[];
  /** Documents someone else had put under an imported one meanwhile: kept, as root documents. */
  keptIds: string[];
}

/**
 * DELETE /internal/documents/import/{importId}: removes every document the import's calls made,
 * in one transaction, as a cascade delete would (document.deleted per imported subtree, so search,
 * attachments and the others follow). A document someone else created or moved under an imported
 * one meanwhile is kept and becomes a root document, as a plain delete does with children
 * (document.moved, reason parent-deleted). Idempotent: a second call finds nothing left.
 * `actorId` (the import's user) is only who the events name: the import's own documents are
 * removed whatever that user's role is by now.
 */
export async function rollbackImport(ctx: DocumentContext, importId: string, actorId: string): Promise<RollbackAnswer> {
  return ctx.pool.transaction(async (tx) => {
    await lockImport(tx, importId);
    const first = await documentsOfImport(tx, importId);
    if (first.length === 0) return { documentIds: [], keptIds: [] };
    // Shape changes (move, delete) wait for this; creations under these rows wait for their locks.
    for (const workspaceId of [...new Set(first.map((d) => d.workspaceId))].sort())
      await lockTreeExclusive(tx, workspaceId);
    await lockDocuments(
      tx,
      first.map((d) => d.id),
    );
    // Read again under the locks: where each is now, and who was added below them.
    const docs = await documentsOfImport(tx, importId);
    const ids = docs.map((d) => d.id);
    const kept = await childrenOutside(tx, ids);
    for (const workspaceId of new Set(kept.map((d) => d.workspaceId))) {
      const roots = kept.filter((d) => d.workspaceId === workspaceId).map((d) => d.id);
      await placeDocuments(tx, null, roots, await nextPositions(tx, roots.length));
    }

    const subtrees = importedSubtrees(docs);
    const tops: Array<[DocumentState, string[]]> = [];
    for (const [top, members] of subtrees) tops.push([await stateOf(tx, top), members]);
    await deleteDocuments(tx, ids);
    for (const [top, members] of tops) await emitDeleted(tx, actorId, top, members, true);
    for (const child of kept)
      await emitMoved(tx, actorId, await stateOf(tx, child.id), child.parentId, 'parent-deleted');
    return { documentIds: ids, keptIds: kept.map((d) => d.id) };
  });
}

/**
 * The imported documents grouped under their topmost imported ancestor (one whose parent is not
 * an imported document), the top first: one document.deleted (in parts) per group, about its top.
 */
export function importedSubtrees(docs: readonly ImportedDocument[]): Map<string, string[]> {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const topOf = (id: string): string => {
    let at = byId.get(id) as ImportedDocument;
    for (let steps = 0; at.parentId !== null && byId.has(at.parentId) && steps <= docs.length; steps++)
      at = byId.get(at.parentId) as ImportedDocument;
    return at.id;
  };
  const groups = new Map<string, string[]>();
  for (const doc of docs) {
    const top = topOf(doc.id);
    const group = groups.get(top) ?? [top];
    if (doc.id !== top) group.push(doc.id);
    groups.set(top, group);
  }
  return groups;
}
