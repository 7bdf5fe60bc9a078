import { notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { deleteDocuments, findState, nextPositions, placeDocuments, siblingsOf, stateOf } from '../db/documents.js';
import { emitDeleted, emitMoved } from '../events/producers.js';
import { requireDocumentRole } from './access.js';
import { lockSubtree } from './subtree-lock.js';
import { lockTreeExclusive } from './tree-lock.js';

/**
 * DELETE /documents/{id} (children become root documents, last among the roots, in their order)
 * and DELETE /documents/{id}/cascade (the whole subtree, permanently). Needs EDITOR. Collab state
 * and the comment-thread projection of the removed documents go with them.
 */
export async function deleteDocument(ctx: DocumentContext, actor: Actor, id: string, cascade: boolean): Promise<void> {
  const workspaceId = await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  await ctx.pool.transaction(async (tx) => {
    await lockTreeExclusive(tx, workspaceId);
    const doc = await findState(tx, id, 'update');
    if (!doc) throw notFound('Document');
    if (cascade) {
      const ids = (await lockSubtree(tx, id)).map((r) => r.id);
      await deleteDocuments(tx, ids);
      await emitDeleted(tx, actor.userId, doc, ids, true);
      return;
    }
    // The row lock above waited for creations under this document; its children are all here now.
    const children = (await siblingsOf(tx, workspaceId, id)).map((c) => c.id);
    await placeDocuments(tx, null, children, await nextPositions(tx, children.length));
    await deleteDocuments(tx, [id]);
    await emitDeleted(tx, actor.userId, doc, [id], false);
    for (const childId of children) {
      const child = await stateOf(tx, childId);
      await emitMoved(tx, actor.userId, child, id, 'parent-deleted');
    }
  });
}
