import { type PointerEvent as ReactPointerEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { type DropZone, moveForDrop, REFUSED } from './moves';
import type { TreeRow } from './tree-rows';

/** What is being dragged, where it would land, and whether that place is refused. */
export interface DragState {
  id: string;
  over: { id: string; zone: DropZone } | null;
  refused: boolean;
}

const START_DISTANCE_PX = 5;
const EDGE_PX = 28;
const SCROLL_STEP_PX = 18;

/**
 * Drag to move with pointer events (mouse and pen; touch scrolls, and "Move to…" serves it):
 * beyond a few pixels a press becomes a drag, the row under the pointer is the target (its top
 * quarter: before it, bottom quarter: after it, the middle: inside it), the list scrolls near its
 * edges, Escape cancels, and the drop calls `onDrop`. Pointer events rather than the HTML drag and
 * drop API: they work the same with the virtualized rows and in an automated browser.
 */
export function useTreeDrag(
  scrollRef: RefObject<HTMLElement | null>,
  rowOf: (id: string) => TreeRow | undefined,
  onDrop: (moved: TreeRow, target: TreeRow, zone: DropZone) => void,
) {
  const [drag, setDrag] = useState<DragState | null>(null);
  const justDropped = useRef(false);
  const stop = useRef<() => void>(() => {});
  useEffect(() => () => stop.current(), []);

  const targetAt = (x: number, y: number): { row: TreeRow; zone: DropZone } | null => {
    const element = document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-tree-id]');
    const id = element?.dataset.treeId;
    const row = id && scrollRef.current?.contains(element) ? rowOf(id) : undefined;
    if (!element || !row) return null;
    const box = element.getBoundingClientRect();
    const edge = box.height / 4;
    const zone: DropZone = y < box.top + edge ? 'before' : y > box.bottom - edge ? 'after' : 'inside';
    return { row, zone };
  };

  const autoScroll = (y: number) => {
    const scroller = scrollRef.current;
    if (!scroller) return;
    const box = scroller.getBoundingClientRect();
    if (y < box.top + EDGE_PX) scroller.scrollTop -= SCROLL_STEP_PX;
    else if (y > box.bottom - EDGE_PX) scroller.scrollTop += SCROLL_STEP_PX;
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLElement>, moved: TreeRow) => {
    if (event.button !== 0 || event.pointerType === 'touch') return;
    if ((event.target as HTMLElement).closest('button, input')) return;
    const start = { x: event.clientX, y: event.clientY };
    let dragging = false;

    const move = (e: PointerEvent) => {
      if (!dragging && Math.hypot(e.clientX - start.x, e.clientY - start.y) < START_DISTANCE_PX) return;
      dragging = true;
      autoScroll(e.clientY);
      const target = targetAt(e.clientX, e.clientY);
      const result = target ? moveForDrop(moved, target.row, target.zone) : null;
      const next: DragState = {
        id: moved.item.id,
        over: target ? { id: target.row.item.id, zone: target.zone } : null,
        refused: result === REFUSED,
      };
      setDrag((current) => (sameDrag(current, next) ? current : next));
    };
    const up = (e: PointerEvent) => {
      finish();
      if (!dragging) return;
      // The click that follows the release is not a click on a document.
      justDropped.current = true;
      setTimeout(() => {
        justDropped.current = false;
      }, 0);
      const target = targetAt(e.clientX, e.clientY);
      if (target) onDrop(moved, target.row, target.zone);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') finish();
    };
    const finish = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', finish);
      window.removeEventListener('keydown', key, true);
      stop.current = () => {};
      setDrag(null);
    };
    stop.current();
    stop.current = finish;
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', finish);
    window.addEventListener('keydown', key, true);
  };

  return { drag, onPointerDown, wasDropped: () => justDropped.current };
}

function sameDrag(a: DragState | null, b: DragState): boolean {
  return (
    a !== null && a.id === b.id && a.refused === b.refused && a.over?.id === b.over?.id && a.over?.zone === b.over?.zone
  );
}
