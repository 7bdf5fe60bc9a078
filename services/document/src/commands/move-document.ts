import { badRequest, invalidField, notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import {
  findState,
  isSelfOrAncestor,
  nextPositions,
  placeDocuments,
  siblingsOf,
  stateOf,
  touch,
} from '../db/documents.js';
import { orderWithInsert } from '../domain/positions.js';
import { emitMoved } from '../events/producers.js';
import { requireDocumentRole, requireNotArchived } from './access.js';
import { lockTreeExclusive } from './tree-lock.js';

export interface MoveInput {
  /** null or absent: to the root of the workspace. */
  parentId?: string | null;
  /** Place among the new parent's visible children; absent or past the end: last. */
  index?: number;
}

/**
 * PUT /documents/{id}/move. Needs EDITOR. Refused with 400: a parent that is the document itself
 * or one of its descendants, a parent in another workspace (or none at all), an archived parent.
 * Moving an archived document is a 409 (restore it first).
 * The checks read the tree under the workspace's exclusive tree lock, so two moves that would
 * only together make a cycle cannot both pass.
 */
export async function moveDocument(ctx: DocumentContext, actor: Actor, id: string, input: MoveInput): Promise<void> {
  const workspaceId = await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  const parentId = input.parentId ?? null;
  if (parentId === id) throw invalidField('parentId', 'cannot be the document itself');

  await ctx.pool.transaction(async (tx) => {
    await lockTreeExclusive(tx, workspaceId);
    const doc = await findState(tx, id, 'update');
    if (!doc) throw notFound('Document');
    requireNotArchived(doc, 'moving');
    if (parentId !== null) {
      const parent = await findState(tx, parentId);
      if (!parent || parent.workspaceId !== doc.workspaceId)
        throw invalidField('parentId', 'must be a document of the same workspace');
      if (parent.isArchived) throw invalidField('parentId', 'is archived');
      if (await isSelfOrAncestor(tx, id, parentId))
        throw badRequest('A document cannot be moved under one of its descendants', [
          { field: 'parentId', message: 'is a descendant of the document' },
        ]);
    }
    if (input.index === undefined) {
      await placeDocuments(tx, parentId, [id], await nextPositions(tx, 1));
    } else {
      const siblings = (await siblingsOf(tx, workspaceId, parentId))
        .filter((s) => s.id !== id)
        .map((s) => ({ id: s.id, visible: !s.isArchived }));
      const order = orderWithInsert(siblings, id, input.index);
      await placeDocuments(tx, parentId, order, await nextPositions(tx, order.length));
    }
    await touch(tx, id);
    const moved = await stateOf(tx, id);
    await emitMoved(tx, actor.userId, moved, doc.parentId, 'move');
  });
}
