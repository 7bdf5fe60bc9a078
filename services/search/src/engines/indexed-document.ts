import type { WholeDocument } from '@wiki/service-client';
import type { IndexedDocument } from './engine.js';

/** A document as an event or a peer describes it: its creator only where it says (newer peers and events). */
export type DescribedDocument = Omit<WholeDocument, 'createdBy'> & { createdBy?: string | null };

/**
 * The index entry of a document (from the stream, the text route, or an event's data with its
 * whole text), written at `version`: the one place the document's fields map to the index's.
 */
export function indexedDocument(
  { id, workspaceId, parentId, title, icon, plainText, archived, updatedAt, createdBy }: DescribedDocument,
  version: number,
): IndexedDocument {
  return {
    id,
    workspaceId,
    parentId,
    title,
    icon,
    plainText,
    archived,
    updatedAt: Date.parse(updatedAt),
    createdBy: createdBy ?? null,
    version,
  };
}
