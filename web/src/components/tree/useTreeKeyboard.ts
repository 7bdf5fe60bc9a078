import { type KeyboardEvent, useRef } from 'react';
import { displayTitle, type TreeRow } from './tree-rows';

export interface TreeKeyHandlers {
  rows: readonly TreeRow[];
  /** The row holding the roving tabindex. */
  focusedIndex: number;
  focusRow(index: number): void;
  setExpanded(id: string, open: boolean): void;
  open(row: TreeRow): void;
  rename(row: TreeRow): void;
  openMenu(row: TreeRow): void;
}

const TYPE_AHEAD_RESET_MS = 700;

/**
 * The keys of the WAI-ARIA tree pattern on a treeitem: Up/Down, Home/End, Right (expand, then into
 * the first child), Left (collapse, then to the parent), Enter or Space (open), type-ahead by title; F2
 * renames and Shift+F10 or the context-menu key opens the item's actions.
 */
export function useTreeKeyboard(handlers: TreeKeyHandlers) {
  const typed = useRef({ text: '', at: 0 });

  return (event: KeyboardEvent<HTMLElement>) => {
    // Keys typed into the rename field or on an item's actions button are theirs.
    if ((event.target as HTMLElement).getAttribute('role') !== 'treeitem') return;
    const { rows, focusedIndex: i, focusRow } = handlers;
    const row = rows[i];
    if (!row) return;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        focusRow(Math.min(i + 1, rows.length - 1));
        break;
      case 'ArrowUp':
        focusRow(Math.max(i - 1, 0));
        break;
      case 'Home':
        focusRow(0);
        break;
      case 'End':
        focusRow(rows.length - 1);
        break;
      case 'ArrowRight':
        if (row.expanded === false) handlers.setExpanded(row.item.id, true);
        else if (row.expanded && rows[i + 1]?.level === row.level + 1) focusRow(i + 1);
        break;
      case 'ArrowLeft':
        if (row.expanded) handlers.setExpanded(row.item.id, false);
        else if (row.level > 1) focusRow(parentIndex(rows, i));
        break;
      case 'Enter':
      case ' ':
        handlers.open(row);
        break;
      case 'F2':
        handlers.rename(row);
        break;
      case 'ContextMenu':
        handlers.openMenu(row);
        break;
      default:
        if (event.key === 'F10' && event.shiftKey) handlers.openMenu(row);
        else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
          const found = typeAhead(rows, i, event.key, typed.current);
          if (found >= 0) focusRow(found);
        } else handled = false;
    }
    if (handled) event.preventDefault();
  };
}

function parentIndex(rows: readonly TreeRow[], i: number): number {
  const level = rows[i].level;
  for (let j = i - 1; j >= 0; j--) if (rows[j].level < level) return j;
  return i;
}

/** The next row whose title starts with what was typed in quick succession (one letter repeated cycles). */
function typeAhead(rows: readonly TreeRow[], from: number, key: string, typed: { text: string; at: number }): number {
  const now = Date.now();
  typed.text = now - typed.at > TYPE_AHEAD_RESET_MS ? key : typed.text + key;
  typed.at = now;
  const repeated = [...typed.text].every((c) => c === typed.text[0]);
  const prefix = (repeated ? typed.text[0] : typed.text).toLocaleLowerCase();
  // A longer prefix may still match the current row; a single letter moves on.
  const start = repeated ? from + 1 : from;
  for (let k = 0; k < rows.length; k++) {
    const j = (start + k) % rows.length;
    if (displayTitle(rows[j].item).toLocaleLowerCase().startsWith(prefix)) return j;
  }
  return -1;
}
