import { Button } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { defaultRangeExtractor, type Range, useVirtualizer } from '@tanstack/react-virtual';
import { lazy, Suspense, useCallback, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useMatch, useNavigate } from 'react-router';
import { ancestorsQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { ROLE_LEVEL } from '../../members/rules';
import { useWorkspaceRole } from '../../members/useWorkspaceRole';
import { ImportButton } from '../jobs/ImportButton';
import { ArchivedDocuments } from './ArchivedDocuments';
import type { TreeCommands, TreeDialogKind } from './commands';
import { type DropZone, moveAmongSiblings, moveForDrop, REFUSED } from './moves';
import { ROW_HEIGHT, TreeItemRow } from './TreeItemRow';
import { displayTitle, type TreeRow } from './tree-rows';
import { useExpanded } from './useExpanded';
import { useRevealCurrent } from './useRevealCurrent';
import { useTreeActions } from './useTreeActions';
import { useTreeDrag } from './useTreeDrag';
import { useTreeKeyboard } from './useTreeKeyboard';
import { useTreeRows } from './useTreeRows';

// The dialogs (and Mantine's Modal) load when first opened: the tree itself needs neither.
const DeleteDocumentDialog = lazy(() =>
  import('./DeleteDocumentDialog').then((m) => ({ default: m.DeleteDocumentDialog })),
);
const MoveDocumentDialog = lazy(() => import('./MoveDocumentDialog').then((m) => ({ default: m.MoveDocumentDialog })));

/**
 * Where focus should go once the rows allow: a row when it is (or appears) in the tree, or, for a
 * row going away (archived, deleted), the row that takes its place once it is gone.
 */
interface FocusRequest {
  id: string;
  /** The index of the row that goes away. */
  whenGone?: number;
}

/**
 * The sidebar's document tree (ARCHITECTURE 5.17): a WAI-ARIA tree with a roving tabindex over the
 * flattened visible rows, virtualized so that only the rows in view (and the focused one) exist in
 * the page; children load when a document is expanded; create, rename, move (drag, or the actions
 * menu), archive, restore and delete, each followed by a refresh of what the tree shows.
 */
export function DocumentTreePanel({ workspaceId }: { workspaceId: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const currentId = useMatch('/w/:workspaceId/d/:documentId')?.params.documentId ?? null;
  const { expanded, setExpanded, expandAll } = useExpanded(workspaceId);
  const { roots, rows, childErrors } = useTreeRows(workspaceId, expanded);
  const actions = useTreeActions(workspaceId);
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const [dialog, setDialog] = useState<{ kind: TreeDialogKind; row: TreeRow } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  // Readers (VIEWER, COMMENTER) browse the tree; changing it is for EDITOR and up. Until the role
  // is known the controls are offered (the API still has the last word).
  const role = useWorkspaceRole(workspaceId);
  const readOnlyHintId = useId();
  const canChange = role === undefined || ROLE_LEVEL[role] >= ROLE_LEVEL.EDITOR;
  const pendingFocus = useRef<FocusRequest | null>(null);

  const indexById = useMemo(() => new Map(rows.map((row, i) => [row.item.id, i])), [rows]);
  const indexOf = useCallback((id: string) => indexById.get(id) ?? -1, [indexById]);
  const focusedIndex = focusedId !== null ? indexOf(focusedId) : -1;
  const currentIndex = currentId !== null ? indexOf(currentId) : -1;
  const tabbableIndex = focusedIndex >= 0 ? focusedIndex : currentIndex >= 0 ? currentIndex : rows.length > 0 ? 0 : -1;

  // The row holding the tabindex is always rendered, even scrolled out of view, so Tab finds it.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (tabbableIndex < 0 || indexes.includes(tabbableIndex)) return indexes;
      return [...indexes, tabbableIndex].sort((a, b) => a - b);
    },
    [tabbableIndex],
  );
  // Stable between renders: a new key function would have the virtualizer lay out every row again.
  const getItemKey = useCallback((index: number) => rows[index].item.id, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: rowHeight,
    getItemKey,
    overscan: 12,
    rangeExtractor,
  });
  const scrollToIndex = useCallback((index: number) => virtualizer.scrollToIndex(index), [virtualizer]);

  useRevealCurrent(currentId, indexOf, roots.isSuccess, expandAll, scrollToIndex);

  const requestFocus = (id: string, whenGone?: number) => {
    pendingFocus.current = { id, whenGone };
    if (whenGone === undefined) setFocusedId(id);
  };
  // Focus follows the request once its row is rendered (scrolling to it first when needed).
  useLayoutEffect(() => {
    const want = pendingFocus.current;
    if (!want) return;
    let index = indexById.get(want.id);
    if (want.whenGone !== undefined) {
      if (index !== undefined) return;
      if (rows.length === 0) {
        pendingFocus.current = null;
        return;
      }
      index = Math.min(want.whenGone, rows.length - 1);
      pendingFocus.current = { id: rows[index].item.id };
      setFocusedId(rows[index].item.id);
    }
    if (index === undefined) return;
    const element = scrollRef.current?.querySelector<HTMLElement>(`[data-tree-id="${rows[index].item.id}"]`);
    if (element && pendingFocus.current?.id === rows[index].item.id) {
      pendingFocus.current = null;
      element.focus({ preventScroll: true });
    }
    virtualizer.scrollToIndex(index);
  });

  const openDocument = (id: string) => navigate(`/w/${workspaceId}/d/${id}`);

  const create = async (parentId: string | null) => {
    const result = await actions.run({ kind: 'create', parentId });
    if (!result.ok || !result.doc) return;
    if (parentId) setExpanded(parentId, true);
    setFocusedId(result.doc.id);
    openDocument(result.doc.id);
  };

  const revealUnder = (parentId: string | null) => {
    if (parentId === null) return;
    queryClient
      .fetchQuery(ancestorsQuery(api, parentId))
      .then((chain) => expandAll(chain.map((step) => step.id)))
      .catch(() => setExpanded(parentId, true));
  };

  const move = async (row: TreeRow, request: { parentId: string | null; index?: number }) => {
    const result = await actions.run({ kind: 'move', id: row.item.id, move: request });
    if (result.ok) revealUnder(request.parentId);
    return result.ok;
  };

  const drop = (moved: TreeRow, target: TreeRow, zone: DropZone) => {
    const request = moveForDrop(moved, target, zone);
    if (request === REFUSED) {
      setNotice(`“${displayTitle(moved.item)}” cannot go inside itself or a document below it.`);
      return;
    }
    if (request) void move(moved, request);
  };
  const { drag, onPointerDown, wasDropped } = useTreeDrag(
    scrollRef,
    (id) => {
      const index = indexById.get(id);
      return index === undefined ? undefined : rows[index];
    },
    drop,
  );

  const implementation: TreeCommands = {
    open: (row) => {
      setFocusedId(row.item.id);
      openDocument(row.item.id);
    },
    toggle: (row) => setExpanded(row.item.id, !row.expanded),
    focused: (row) => setFocusedId(row.item.id),
    pointerDown: (event, row) => {
      if (canChange) onPointerDown(event, row);
    },
    wasDropped: () => wasDropped(),
    newChild: (row) => void create(row.item.id),
    startRename: (row) => setRenamingId(row.item.id),
    finishRename: (row, title, byKey) => {
      setRenamingId(null);
      if (byKey) requestFocus(row.item.id);
      const next = title?.trim();
      if (next === undefined || next === row.item.title) return;
      void actions.run({ kind: 'rename', id: row.item.id, title: next });
    },
    moveAmongSiblings: (row, direction) => {
      const request = moveAmongSiblings(row, direction);
      if (request) void move(row, request);
    },
    archive: (row) => {
      const index = indexOf(row.item.id);
      void actions
        .run({ kind: 'archive', id: row.item.id })
        .then((result) => requestFocus(row.item.id, result.ok ? index : undefined));
    },
    openDialog: (kind, row) => {
      actions.dismissError();
      setDialog({ kind, row });
    },
  };
  const latest = useRef(implementation);
  latest.current = implementation;
  const commands = useMemo(() => delegateTo(latest), []);

  const onKeyDown = useTreeKeyboard({
    rows,
    focusedIndex: tabbableIndex,
    focusRow: (index) => requestFocus(rows[index].item.id),
    setExpanded,
    open: commands.open,
    rename: (row) => {
      if (canChange) commands.startRename(row);
    },
    // After this key event is done: a menu opened inside it closes again straight away.
    openMenu: (row) => {
      if (!canChange) return;
      const button = scrollRef.current?.querySelector<HTMLButtonElement>(
        `[data-tree-id="${row.item.id}"] .tree-actions`,
      );
      setTimeout(() => button?.click(), 0);
    },
  });

  const closeDialog = () => {
    if (dialog) requestFocus(dialog.row.item.id);
    setDialog(null);
  };
  const confirmDelete = async (row: TreeRow, withChildren: boolean) => {
    const index = indexOf(row.item.id);
    const result = await actions.run({ kind: 'delete', id: row.item.id, withChildren });
    if (!result.ok) return;
    setDialog(null);
    const currentGone =
      currentId === row.item.id || (withChildren && currentIndex >= 0 && rows[currentIndex].path.includes(row.item.id));
    if (currentGone) navigate(`/w/${workspaceId}`);
    requestFocus(row.item.id, index);
  };
  const moveTo = async (row: TreeRow, parentId: string | null) => {
    if (await move(row, { parentId })) {
      setDialog(null);
      requestFocus(row.item.id);
    }
  };

  const message = notice ?? (dialog ? null : (actions.error?.message ?? null));
  const dialogError = dialog ? (actions.error?.message ?? null) : null;

  return (
    <div className="document-tree">
      <Button
        variant="light"
        fullWidth
        disabled={!canChange}
        aria-describedby={canChange ? undefined : readOnlyHintId}
        onClick={() => void create(null)}
      >
        New document
      </Button>
      <ImportButton
        workspaceId={workspaceId}
        currentId={currentId}
        disabled={!canChange}
        describedBy={canChange ? undefined : readOnlyHintId}
      />
      {!canChange && role && (
        <p id={readOnlyHintId} className="tree-hint">
          You can read these documents; your role ({role.toLowerCase()}) does not allow changing them.
        </p>
      )}
      {message && (
        <div role="alert" className="tree-alert">
          <span>{message}</span>
          <button
            type="button"
            onClick={() => {
              setNotice(null);
              actions.dismissError();
            }}
          >
            Dismiss
          </button>
        </div>
      )}
      {childErrors.map(({ parentId, error, retry }) => {
        const index = indexById.get(parentId);
        const title = index === undefined ? 'a document' : `“${displayTitle(rows[index].item)}”`;
        return (
          <div role="alert" className="tree-alert" key={parentId}>
            <span>
              The documents under {title} did not load: {error.message}
            </span>
            <button type="button" onClick={retry}>
              Try again
            </button>
          </div>
        );
      })}
      {roots.isPending && (
        <p role="status" className="tree-hint">
          Loading documents…
        </p>
      )}
      {roots.error && (
        <div role="alert" className="tree-alert">
          <span>The documents did not load: {roots.error.message}</span>
          <button type="button" onClick={() => void roots.refetch()}>
            Try again
          </button>
        </div>
      )}
      {roots.isSuccess && rows.length === 0 && (
        <p className="tree-hint">No documents yet. “New document” starts the first one.</p>
      )}
      <div ref={scrollRef} className="tree-scroll">
        {rows.length > 0 && (
          <div
            role="tree"
            aria-label="Document tree"
            className={drag ? 'tree is-dragging' : 'tree'}
            style={{ height: virtualizer.getTotalSize() }}
            onKeyDown={onKeyDown}
          >
            {virtualizer.getVirtualItems().map((virtual) => {
              const row = rows[virtual.index];
              const id = row.item.id;
              return (
                <TreeItemRow
                  key={virtual.key}
                  row={row}
                  start={virtual.start}
                  tabbable={virtual.index === tabbableIndex}
                  current={id === currentId}
                  renaming={id === renamingId}
                  dragging={drag?.id === id}
                  drop={drag?.over?.id === id ? drag.over.zone : null}
                  refused={drag?.over?.id === id && drag.refused}
                  commands={commands}
                  canChange={canChange}
                />
              );
            })}
          </div>
        )}
      </div>
      <ArchivedDocuments
        workspaceId={workspaceId}
        onRestore={(id) =>
          actions.run({ kind: 'restore', id }).then((result) => result.ok && revealUnder(result.doc?.parentId ?? null))
        }
      />
      <Suspense fallback={null}>
        {dialog && dialog.kind !== 'move' && (
          <DeleteDocumentDialog
            row={dialog.row}
            withChildren={dialog.kind === 'delete-with-children'}
            pending={actions.pending}
            error={dialogError}
            onConfirm={() => void confirmDelete(dialog.row, dialog.kind === 'delete-with-children')}
            onClose={closeDialog}
          />
        )}
        {dialog?.kind === 'move' && (
          <MoveDocumentDialog
            row={dialog.row}
            workspaceId={workspaceId}
            pending={actions.pending}
            error={dialogError}
            onMove={(parentId) => void moveTo(dialog.row, parentId)}
            onClose={closeDialog}
          />
        )}
      </Suspense>
    </div>
  );
}

const rowHeight = () => ROW_HEIGHT;

/** A stable TreeCommands whose every call goes to the latest implementation (so rows need not re-render for new closures). */
function delegateTo(latest: { current: TreeCommands }): TreeCommands {
  return {
    open: (row) => latest.current.open(row),
    toggle: (row) => latest.current.toggle(row),
    focused: (row) => latest.current.focused(row),
    pointerDown: (event, row) => latest.current.pointerDown(event, row),
    wasDropped: () => latest.current.wasDropped(),
    newChild: (row) => latest.current.newChild(row),
    startRename: (row) => latest.current.startRename(row),
    finishRename: (row, title, byKey) => latest.current.finishRename(row, title, byKey),
    moveAmongSiblings: (row, direction) => latest.current.moveAmongSiblings(row, direction),
    archive: (row) => latest.current.archive(row),
    openDialog: (kind, row) => latest.current.openDialog(kind, row),
  };
}
