/**
 * Ordering of siblings. Every position comes from one ever-growing sequence, so a document created
 * later always lands after its existing siblings, without reading them. A move with an `index`
 * renumbers the target's siblings with fresh (larger) sequence values in their new order.
 */

export interface Sibling {
  id: string;
  /** Hidden siblings (archived) keep their relative place but are not counted by `index`. */
  visible: boolean;
}

/**
 * The new order of a parent's children when `movedId` is put at `index` among the visible ones.
 * `siblings` is the current order without the moved document. An index at or past the number of
 * visible siblings puts it last.
 */
export function orderWithInsert(siblings: readonly Sibling[], movedId: string, index: number): string[] {
  const ids = siblings.map((s) => s.id);
  let seen = 0;
  for (let i = 0; i < siblings.length; i++) {
    if (!siblings[i].visible) continue;
    if (seen === index) {
      ids.splice(i, 0, movedId);
      return ids;
    }
    seen++;
  }
  ids.push(movedId);
  return ids;
}
