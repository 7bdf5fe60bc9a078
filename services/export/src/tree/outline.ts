import type { ServiceClient } from '@wiki/service-client';
import { SiblingNames, safeSegment } from './names.js';

export interface OutlineDocument {
  id: string;
  parentId: string | null;
  title: string;
}

/** One exported document: where it goes in the zip. */
export interface PlacedDocument {
  id: string;
  title: string;
  /** The folders above it, as zip path segments (`[]` at the root). */
  folder: string[];
  /** Its name without extension; its children, if any, go into a folder of the same name. */
  name: string;
  hasChildren: boolean;
}

/** The folder at the root of the zip holding the attachments; no document may take its name. */
export const ATTACHMENTS_FOLDER = '_attachments';

/**
 * The file at the root of the zip listing the documents' files in reading order (parents first,
 * siblings in their order): file names cannot say the order, and an import of the zip reads it
 * back from here (import/tree.ts). No document may take its name either.
 */
export const TREE_MANIFEST = '_tree.json';

function parseOutline(data: unknown): OutlineDocument[] {
  const d = data as { documents?: unknown } | null;
  if (!Array.isArray(d?.documents)) throw new Error('the tree answer lacks documents');
  return d.documents as OutlineDocument[];
}

/** The workspace's documents that are not archived, in sibling order (the document service's internal route). */
export async function readOutline(
  peers: ServiceClient,
  workspaceId: string,
  requestId?: string,
): Promise<OutlineDocument[]> {
  const found = await peers.get('document', `/internal/documents/tree?workspaceId=${encodeURIComponent(workspaceId)}`, {
    requestId,
    parse: parseOutline,
  });
  return found ?? [];
}

/**
 * The documents to export in reading order (a parent before its children, siblings in their
 * order), each placed: the whole workspace when `rootId` is null, else that document and (with
 * `includeChildren`) its descendants. An empty list when the root is not in the outline (deleted
 * or archived). Walked with a stack: a deep chain cannot overflow.
 */
export function placeDocuments(
  outline: readonly OutlineDocument[],
  rootId: string | null,
  includeChildren: boolean,
): PlacedDocument[] {
  const children = new Map<string | null, OutlineDocument[]>();
  const known = new Set(outline.map((d) => d.id));
  for (const doc of outline) {
    // A document whose parent is not visible (archived) has no place: its subtree is archived too.
    if (doc.parentId !== null && !known.has(doc.parentId)) continue;
    const list = children.get(doc.parentId) ?? [];
    list.push(doc);
    children.set(doc.parentId, list);
  }
  const roots = rootId === null ? (children.get(null) ?? []) : outline.filter((d) => d.id === rootId);
  const kidsOf = (id: string) => (includeChildren ? (children.get(id) ?? []) : []);
  /** Siblings named together (duplicates numbered), in reverse so that the first is popped first. */
  const place = (docs: OutlineDocument[], folder: string[]): PlacedDocument[] => {
    const names = new SiblingNames(folder.length === 0 ? [ATTACHMENTS_FOLDER, TREE_MANIFEST] : []);
    const level = docs.map((doc) => ({
      id: doc.id,
      title: doc.title,
      folder,
      name: names.claim(safeSegment(doc.title || 'Untitled')),
      hasChildren: kidsOf(doc.id).length > 0,
    }));
    return level.reverse();
  };
  const placed: PlacedDocument[] = [];
  const stack = place(roots, []);
  while (stack.length > 0) {
    const next = stack.pop() as PlacedDocument;
    placed.push(next);
    if (next.hasChildren) stack.push(...place(kidsOf(next.id), [...next.folder, next.name]));
  }
  return placed;
}
