import { isWithin, type TreeRow } from './tree-rows';

/** Where a dragged document lands relative to the row under the pointer. */
export type DropZone = 'before' | 'inside' | 'after';

/** The body of PUT /documents/{id}/move: a parent (null: the top level) and a place among its children. */
export interface MoveRequest {
  parentId: string | null;
  /** 0-based among the new parent's visible children without the moved one; absent: last. */
  index?: number;
}

/** A move the API would refuse (400): under itself or under one of its own descendants. */
export const REFUSED = 'refused';

/**
 * The move a drop of `moved` on `target` asks for: REFUSED when it would put the document inside
 * itself, null when it changes nothing. Dropping below an expanded document puts it first among
 * that document's children, where the drop line shows it.
 */
export function moveForDrop(moved: TreeRow, target: TreeRow, zone: DropZone): MoveRequest | typeof REFUSED | null {
  const id = moved.item.id;
  if (target.item.id === id) return null;
  if (isWithin(target, id)) return REFUSED;
  const currentIndex = moved.posinset - 1;
  if (zone === 'inside') {
    const alreadyLast = moved.item.parentId === target.item.id && moved.posinset === moved.setsize;
    return alreadyLast ? null : { parentId: target.item.id };
  }
  if (zone === 'after' && target.expanded) {
    const alreadyFirst = moved.item.parentId === target.item.id && currentIndex === 0;
    return alreadyFirst ? null : { parentId: target.item.id, index: 0 };
  }
  const parentId = target.item.parentId;
  const others = target.siblings.filter((s) => s.id !== id);
  const index = others.findIndex((s) => s.id === target.item.id) + (zone === 'after' ? 1 : 0);
  if (moved.item.parentId === parentId && currentIndex === index) return null;
  return { parentId, index };
}

/** One place up or down among its siblings (the keyboard's way to reorder); null at the end. */
export function moveAmongSiblings(row: TreeRow, direction: 'up' | 'down'): MoveRequest | null {
  const index = row.posinset - 1 + (direction === 'up' ? -1 : 1);
  if (index < 0 || index >= row.setsize) return null;
  return { parentId: row.item.parentId, index };
}
