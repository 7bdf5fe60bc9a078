import { LocalCache } from '@wiki/cache';
import type { CommonQueryMethods } from '@wiki/db';
import { findWorkspaceOf } from './documents.js';

/** Documents whose workspace is remembered at most; the least recently looked up goes first. */
const MAX_REMEMBERED = 100_000;

/**
 * The workspace of a document, remembered: a document never changes workspace, so the first step
 * of every permission check costs a query only the first time a replica sees the document. A
 * deleted document may stay remembered; whatever reads it next finds no row and answers 404.
 * Unknown ids are not remembered (they may be created later).
 */
export function rememberedWorkspaceOf(db: CommonQueryMethods, max = MAX_REMEMBERED) {
  const known = new LocalCache<string>({ maxEntries: max });
  return async (documentId: string): Promise<string | null> =>
    (await known.getOrLoad(documentId, async () => (await findWorkspaceOf(db, documentId)) ?? undefined)) ?? null;
}
