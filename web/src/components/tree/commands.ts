import type { PointerEvent } from 'react';
import type { TreeRow } from './tree-rows';

/** The confirmation or picker a document's actions open. */
export type TreeDialogKind = 'delete' | 'delete-with-children' | 'move';

/** What a row can ask of the tree; one stable object, so rows re-render only when their own row changes. */
export interface TreeCommands {
  open(row: TreeRow): void;
  toggle(row: TreeRow): void;
  focused(row: TreeRow): void;
  pointerDown(event: PointerEvent<HTMLElement>, row: TreeRow): void;
  wasDropped(): boolean;
  newChild(row: TreeRow): void;
  startRename(row: TreeRow): void;
  /** `title` null: cancelled; `byKey`: Enter or Escape (focus goes back to the row). */
  finishRename(row: TreeRow, title: string | null, byKey: boolean): void;
  moveAmongSiblings(row: TreeRow, direction: 'up' | 'down'): void;
  archive(row: TreeRow): void;
  openDialog(kind: TreeDialogKind, row: TreeRow): void;
}
