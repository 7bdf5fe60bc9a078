/** What public readers may see of a document's ancestry (ARCHITECTURE 5.7). */
export interface ChainLink {
  id: string;
  isPublished: boolean;
  isArchived: boolean;
}

export const isPublic = (doc: { isPublished: boolean; isArchived: boolean }): boolean =>
  doc.isPublished && !doc.isArchived;

/**
 * Given the chain from the root down to a document (ending with it), the unbroken run of publicly
 * readable documents directly above it and the document itself, still ordered from the top. Empty
 * when the document itself is not public. An unpublished document in between cuts the chain: what
 * lies above it is not shown, not even its title.
 */
export function publicAncestors<T extends ChainLink>(chainFromRoot: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = chainFromRoot.length - 1; i >= 0; i--) {
    if (!isPublic(chainFromRoot[i])) break;
    out.push(chainFromRoot[i]);
  }
  return out.reverse();
}
