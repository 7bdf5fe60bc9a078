import { type Block, type BlockChange, diffBlocks } from '@wiki/blocks';
import { notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { currentState, findRevision } from '../db/revisions.js';
import { requireDocumentRole } from './access.js';

export interface RevisionDiff {
  from: number;
  to: number;
  blocks: BlockChange[];
}

/**
 * GET /revisions/{revisionId}/diff?against=current|<revisionId> (VIEWER and up): how to get from
 * the path's revision to `against`, block by block (libs/blocks diffBlocks: matched by id, nested
 * blocks flattened, words inside changed blocks). `to` is the revision number of `against`: the
 * document's revision now for `current`. Another document's revision, on either side, is a 404.
 */
export async function diffRevision(
  ctx: DocumentContext,
  reader: Actor,
  documentId: string,
  revisionId: string,
  against: string,
): Promise<RevisionDiff> {
  await requireDocumentRole(ctx, documentId, reader.userId, 'VIEWER', reader.requestId);
  const [from, to] = await Promise.all([
    findRevision(ctx.pool, documentId, revisionId),
    against === 'current' ? currentState(ctx.pool, documentId) : findRevision(ctx.pool, documentId, against),
  ]);
  if (!from) throw notFound('Revision');
  if (!to) throw notFound(against === 'current' ? 'Document' : 'Revision to compare with');
  return { from: from.revision, to: to.revision, blocks: diffBlocks(blocksOf(from.content), blocksOf(to.content)) };
}

/** Stored content is a JSON array of blocks (checked when it was written). */
const blocksOf = (content: string): Block[] => JSON.parse(content) as Block[];
