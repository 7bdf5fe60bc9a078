import type { WholeDocument } from '@wiki/service-client';
import type { IndexedDocument } from './engine.js';

/**
 * The index entry of a document (from the stream, the text route, or an event's data with its
 * whole text), written at `version`: the one place the document's fields map to the index's.
 */
export function indexedDocument(
  { id, workspaceId, parentId, title, icon, plainText, archived }: Omit<WholeDocument, 'updatedAt'>,
  version: number,
): IndexedDocument {
  return { id, workspaceId, parentId, title, icon, plainText, archived, version };
}
