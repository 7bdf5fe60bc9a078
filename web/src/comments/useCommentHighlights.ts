import { useEffect, useRef } from 'react';
import type { CommentThread } from '../api/types';
import { locateAnchor, pointAt } from './anchor-dom';

/** The names the stylesheet paints (`::highlight(comment-anchor)` in CommentsPanel.css). */
const HIGHLIGHT = 'comment-anchor';
const ACTIVE_HIGHLIGHT = 'comment-anchor-active';

const supported = () => typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight === 'function';

/**
 * Marks the anchored text of the open threads in the editor with the CSS Custom Highlight API
 * (no change to the DOM ProseMirror owns), repaints as the text changes under everyone's edits, and
 * reports a click on marked text as that thread. Browsers without the API show no marks; the panel
 * and "Show in document" still work.
 */
export function useCommentHighlights(
  element: HTMLElement | null,
  threads: readonly CommentThread[],
  activeId: string | null,
  onOpen: (threadId: string) => void,
): void {
  const ranges = useRef(new Map<string, Range>());
  const opener = useRef(onOpen);
  opener.current = onOpen;

  useEffect(() => {
    if (!element || !supported()) return;
    const open = threads.filter((thread) => thread.status === 'open');
    let frame = 0;
    const paint = () => {
      frame = 0;
      ranges.current.clear();
      const all = new Highlight();
      const active = new Highlight();
      for (const thread of open) {
        const range = locateAnchor(element, thread.anchor);
        if (!range || range.collapsed) continue;
        ranges.current.set(thread.id, range);
        (thread.id === activeId ? active : all).add(range);
      }
      CSS.highlights.set(HIGHLIGHT, all);
      CSS.highlights.set(ACTIVE_HIGHLIGHT, active);
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(paint);
    };
    paint();
    // The editor renders after this effect and its text changes with every edit: repaint then.
    const observer = new MutationObserver(schedule);
    observer.observe(element, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
      CSS.highlights.delete(HIGHLIGHT);
      CSS.highlights.delete(ACTIVE_HIGHLIGHT);
    };
  }, [element, threads, activeId]);

  useEffect(() => {
    if (!element) return;
    const onClick = (event: MouseEvent) => {
      if (event.button !== 0 || !window.getSelection()?.isCollapsed) return;
      const point = pointAt(event.clientX, event.clientY);
      if (!point) return;
      for (const [threadId, range] of ranges.current) {
        if (range.isPointInRange(point.node, point.offset)) {
          opener.current(threadId);
          return;
        }
      }
    };
    element.addEventListener('click', onClick);
    return () => element.removeEventListener('click', onClick);
  }, [element]);
}
