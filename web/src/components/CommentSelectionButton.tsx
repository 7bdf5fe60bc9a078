import { useEffect, useState } from 'react';
import type { CommentAnchor } from '../api/types';
import { anchorOfSelection } from '../comments/anchor-dom';

interface Props {
  /** The element around the editor; the button is placed inside it, under the selection. */
  root: HTMLElement | null;
  onComment: (anchor: CommentAnchor) => void;
}

/** Ctrl/⌘-Alt-M comments on the selection, as the button does (`code`: Alt changes the key on a Mac). */
const isShortcut = (event: KeyboardEvent) =>
  (event.ctrlKey || event.metaKey) && event.altKey && !event.shiftKey && event.code === 'KeyM';

/**
 * "Comment": shown under text selected in the editor (editable or not: commenters cannot edit),
 * and the same from the keyboard with Ctrl/⌘-Alt-M. Pressing it keeps the selection (mousedown
 * does not take it away) and hands its anchor over.
 */
export function CommentSelectionButton({ root, onComment }: Props) {
  const [selected, setSelected] = useState<{ anchor: CommentAnchor; top: number; left: number } | null>(null);
  const [hint, setHint] = useState('');

  useEffect(() => {
    const element = root;
    if (!element) return;
    const follow = () => {
      const selection = window.getSelection();
      const anchor = anchorOfSelection(element, selection);
      if (!anchor || !selection) {
        // Focus on the button itself leaves the selection where it was.
        if (!element.contains(document.activeElement) || selection?.isCollapsed) setSelected(null);
        return;
      }
      const rects = selection.getRangeAt(0).getClientRects();
      const last = rects[rects.length - 1] ?? selection.getRangeAt(0).getBoundingClientRect();
      const box = element.getBoundingClientRect();
      setSelected({ anchor, top: last.bottom - box.top + 6, left: Math.max(0, last.left - box.left) });
      setHint('');
    };
    // On the document: a read-only editor never has the focus, the selection is all there is.
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isShortcut(event)) return;
      const anchor = anchorOfSelection(element, window.getSelection());
      if (!anchor && !element.contains(document.activeElement)) return;
      event.preventDefault();
      event.stopPropagation();
      if (anchor) onComment(anchor);
      else setHint('Select some text in the document first, then press Ctrl+Alt+M to comment on it.');
    };
    document.addEventListener('selectionchange', follow);
    document.addEventListener('keydown', onKeyDown, true);
    return () => {
      document.removeEventListener('selectionchange', follow);
      document.removeEventListener('keydown', onKeyDown, true);
    };
  }, [root, onComment]);

  return (
    <>
      {selected && (
        <button
          type="button"
          className="comment-selection-button"
          style={{ top: selected.top, left: selected.left }}
          aria-keyshortcuts="Control+Alt+M Meta+Alt+M"
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => {
            onComment(selected.anchor);
            setSelected(null);
          }}
        >
          Comment
        </button>
      )}
      <p role="status" className="visually-hidden">
        {hint}
      </p>
    </>
  );
}
