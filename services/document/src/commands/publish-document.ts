import { notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { findState, setPublished } from '../db/documents.js';
import { emitPublication } from '../events/producers.js';
import { requireDocumentRole, requireNotArchived } from './access.js';

/**
 * POST /documents/{id}/publish and /unpublish. Needs EDITOR; publishing twice changes nothing.
 * Publishing an archived document is a 409 (restore it first); unpublishing one is allowed.
 */
export async function setPublication(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  published: boolean,
): Promise<void> {
  await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  await ctx.pool.transaction(async (tx) => {
    const doc = await findState(tx, id, 'update');
    if (!doc) throw notFound('Document');
    if (published) requireNotArchived(doc, 'publishing');
    if (doc.isPublished === published) return;
    await emitPublication(tx, actor.userId, await setPublished(tx, id, published));
  });
}
