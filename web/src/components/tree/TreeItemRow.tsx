import { memo, type SyntheticEvent } from 'react';
import type { TreeCommands } from './commands';
import { DocumentActionsMenu } from './DocumentActionsMenu';
import type { DropZone } from './moves';
import { RenameField } from './RenameField';
import { displayTitle, type TreeRow } from './tree-rows';

export const ROW_HEIGHT = 32;
const INDENT_PX = 16;

export interface TreeItemRowProps {
  row: TreeRow;
  /** Its offset in the virtualized list. */
  start: number;
  tabbable: boolean;
  /** The document on the page. */
  current: boolean;
  renaming: boolean;
  dragging: boolean;
  drop: DropZone | null;
  refused: boolean;
  commands: TreeCommands;
  /** Whether the person may change the tree (EDITOR and up): readers get no actions menu. */
  canChange: boolean;
}

/** One `treeitem`, named by the document's title, with its place in the tree for assistive technology. */
export const TreeItemRow = memo(function TreeItemRow(props: TreeItemRowProps) {
  const { row, start, tabbable, current, renaming, dragging, drop, refused, commands, canChange } = props;
  const title = displayTitle(row.item);
  const openComments = row.item.openCommentCount ?? 0;
  const commentsId = `tree-comments-${row.item.id}`;
  const classes = ['tree-row'];
  if (current) classes.push('is-current');
  if (dragging) classes.push('is-dragging');
  if (drop) classes.push(refused ? 'drop-refused' : `drop-${drop}`);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the tree's onKeyDown takes this item's keys (Enter opens it)
    <div
      role="treeitem"
      data-tree-id={row.item.id}
      aria-label={title}
      aria-level={row.level}
      aria-setsize={row.setsize}
      aria-posinset={row.posinset}
      aria-expanded={row.expanded}
      aria-selected={current}
      aria-current={current ? 'page' : undefined}
      aria-describedby={openComments > 0 ? commentsId : undefined}
      aria-busy={row.loading || undefined}
      tabIndex={tabbable ? 0 : -1}
      className={classes.join(' ')}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT, paddingLeft: (row.level - 1) * INDENT_PX + 4 }}
      onFocus={() => commands.focused(row)}
      onPointerDown={(event) => {
        if (ownEvent(event)) commands.pointerDown(event, row);
      }}
      onClick={(event) => {
        if (ownEvent(event) && !renaming && !commands.wasDropped()) commands.open(row);
      }}
    >
      <span
        className="tree-toggle"
        aria-hidden="true"
        onClick={(event) => {
          event.stopPropagation();
          if (row.expanded !== undefined) commands.toggle(row);
        }}
      >
        {row.expanded === undefined ? '' : row.expanded ? '▾' : '▸'}
      </span>
      {row.item.icon && (
        <span className="tree-icon" aria-hidden="true">
          {row.item.icon}
        </span>
      )}
      {renaming ? (
        <RenameField initial={row.item.title} onDone={(value, byKey) => commands.finishRename(row, value, byKey)} />
      ) : (
        <span className="tree-title">{title}</span>
      )}
      {openComments > 0 && (
        <span id={commentsId} className="tree-comments" role="img" aria-label={openCommentsLabel(openComments)}>
          {openComments}
        </span>
      )}
      {row.loading && (
        <span className="tree-loading" aria-hidden="true">
          Loading…
        </span>
      )}
      {canChange && <DocumentActionsMenu row={row} tabbable={tabbable} commands={commands} />}
    </div>
  );
});

/** The count's accessible name (the item's own name stays its title, ARCHITECTURE 5.17). */
export function openCommentsLabel(count: number): string {
  return count === 1 ? '1 open comment' : `${count} open comments`;
}

/**
 * A click or press on the item itself: not on its actions button or rename field, and not on the
 * actions menu, whose events reach the item through React's tree although it sits in a portal.
 */
function ownEvent(event: SyntheticEvent<HTMLElement>): boolean {
  const target = event.target as HTMLElement;
  return event.currentTarget.contains(target) && !target.closest('button, input');
}
