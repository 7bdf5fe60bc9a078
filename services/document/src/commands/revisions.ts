import { notFound, refusal } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import {
  deleteRevision,
  findRevision,
  nameCurrentState,
  type RevisionRow,
  type RevisionSummaryRow,
  revisionPage,
} from '../db/revisions.js';
import { requireDocumentRole } from './access.js';

/**
 * The history routes of ARCHITECTURE 5.16: readers of the document (VIEWER and up) list and read
 * its revisions, EDITOR and up name and restore, ADMIN and up delete. A document the caller may
 * not see is a 404, as is a revision of another document.
 */

/** The largest offset a page may ask for (page × size beyond it finds nothing anyway). */
const MAX_OFFSET = 2 ** 31 - 1;

export async function listRevisions(
  ctx: DocumentContext,
  reader: Actor,
  documentId: string,
  page: number,
  size: number,
): Promise<{ rows: readonly RevisionSummaryRow[]; total: number }> {
  await requireDocumentRole(ctx, documentId, reader.userId, 'VIEWER', reader.requestId);
  return revisionPage(ctx.pool, documentId, Math.min(page * size, MAX_OFFSET), size);
}

export async function readRevision(
  ctx: DocumentContext,
  reader: Actor,
  documentId: string,
  revisionId: string,
): Promise<RevisionRow> {
  await requireDocumentRole(ctx, documentId, reader.userId, 'VIEWER', reader.requestId);
  return (await findRevision(ctx.pool, documentId, revisionId)) ?? throwRevisionNotFound();
}

/** POST /revisions {name}: the current state, kept as a named revision (db/revisions.ts nameCurrentState). */
export async function nameRevision(
  ctx: DocumentContext,
  actor: Actor,
  documentId: string,
  name: string,
): Promise<RevisionSummaryRow> {
  await requireDocumentRole(ctx, documentId, actor.userId, 'EDITOR', actor.requestId);
  await ctx.users.remember(actor);
  const named = await ctx.pool.transaction((tx) => nameCurrentState(tx, documentId, name, actor.userId));
  return named ?? throwDocumentNotFound();
}

export async function removeRevision(
  ctx: DocumentContext,
  actor: Actor,
  documentId: string,
  revisionId: string,
): Promise<void> {
  await requireDocumentRole(ctx, documentId, actor.userId, 'ADMIN', actor.requestId);
  const outcome = await ctx.pool.transaction((tx) => deleteRevision(tx, documentId, revisionId));
  if (outcome === 'missing') throwRevisionNotFound();
  if (outcome === 'current') {
    throw refusal(
      'REVISION_CURRENT',
      'This revision holds what the document shows now; change the document before deleting it',
    );
  }
}

export function throwRevisionNotFound(): never {
  throw notFound('Revision');
}

export function throwDocumentNotFound(): never {
  throw notFound('Document');
}
