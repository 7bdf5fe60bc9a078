import { Menu } from '@mantine/core';
import { useState } from 'react';
import type { TreeCommands } from './commands';
import type { TreeRow } from './tree-rows';

/**
 * A document's actions: a menu button ("Document actions") whose menu items create a child,
 * rename, reorder (up and down, the keyboard's way to drag), move elsewhere, archive and delete.
 */
export function DocumentActionsMenu({
  row,
  tabbable,
  commands,
}: {
  row: TreeRow;
  tabbable: boolean;
  commands: TreeCommands;
}) {
  // An action that puts focus somewhere itself (the rename field, a dialog) keeps the menu from
  // handing it back to this button.
  const [handsOff, setHandsOff] = useState(false);
  const takingFocus = (action: () => void) => () => {
    setHandsOff(true);
    action();
  };
  return (
    // No open/close animation: Mantine's two-frame exit could stay half-way when the rows re-render
    // right after an item's action (a move), leaving a closed menu on screen.
    <Menu
      position="bottom-end"
      returnFocus={!handsOff}
      onOpen={() => setHandsOff(false)}
      transitionProps={{ duration: 0 }}
      // Its focusable placeholder is a menu child that is no menuitem (axe: aria-required-children).
      withInitialFocusPlaceholder={false}
      withinPortal
    >
      <Menu.Target>
        <button type="button" className="tree-actions" aria-label="Document actions" tabIndex={tabbable ? 0 : -1}>
          <span aria-hidden="true">⋯</span>
        </button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => commands.newChild(row)}>New child document</Menu.Item>
        <Menu.Item onClick={takingFocus(() => commands.startRename(row))}>Rename</Menu.Item>
        <Menu.Divider />
        <Menu.Item disabled={row.posinset === 1} onClick={() => commands.moveAmongSiblings(row, 'up')}>
          Move up
        </Menu.Item>
        <Menu.Item disabled={row.posinset === row.setsize} onClick={() => commands.moveAmongSiblings(row, 'down')}>
          Move down
        </Menu.Item>
        <Menu.Item onClick={takingFocus(() => commands.openDialog('move', row))}>Move to…</Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={takingFocus(() => commands.archive(row))}>Archive</Menu.Item>
        <Menu.Item onClick={takingFocus(() => commands.openDialog('delete', row))}>Delete</Menu.Item>
        {row.expanded !== undefined && (
          <Menu.Item onClick={takingFocus(() => commands.openDialog('delete-with-children', row))}>
            Delete with children
          </Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
