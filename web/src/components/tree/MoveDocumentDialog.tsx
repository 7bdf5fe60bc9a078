import { Button, Group, Modal, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { documentTreeQuery } from '../../api/queries';
import type { DocumentTreeNode } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { displayTitle, type TreeRow } from './tree-rows';

const SHOWN = 100;

interface Place {
  id: string | null;
  label: string;
}

/** Every document that can take `movedId` as a child (not itself nor anything below it), with its path. */
function placesFor(roots: readonly DocumentTreeNode[], movedId: string): Place[] {
  const places: Place[] = [];
  const visit = (nodes: readonly DocumentTreeNode[], path: string) => {
    for (const node of nodes) {
      if (node.id === movedId) continue;
      const label = path ? `${path} › ${displayTitle(node)}` : displayTitle(node);
      places.push({ id: node.id, label });
      visit(node.children, label);
    }
  };
  visit(roots, '');
  return places;
}

/** The keyboard's (and touch's) way to re-parent: pick a new parent from the whole tree, or the top level. */
export function MoveDocumentDialog({
  row,
  workspaceId,
  pending,
  error,
  onMove,
  onClose,
}: {
  row: TreeRow;
  workspaceId: string;
  pending: boolean;
  error: string | null;
  onMove: (parentId: string | null) => void;
  onClose: () => void;
}) {
  const api = useApi();
  const tree = useQuery(documentTreeQuery(api, workspaceId));
  const hintId = useId();
  const [filter, setFilter] = useState('');
  const [choice, setChoice] = useState<string>('');
  const places = useMemo(() => (tree.data ? placesFor(tree.data, row.item.id) : []), [tree.data, row.item.id]);
  const matching = useMemo(() => {
    const words = filter.toLocaleLowerCase().split(/\s+/).filter(Boolean);
    return places.filter((p) => words.every((w) => p.label.toLocaleLowerCase().includes(w)));
  }, [places, filter]);
  const title = displayTitle(row.item);
  const here = (id: string | null) => (id === row.item.parentId ? ' (where it is now)' : '');
  const options: Place[] = [{ id: null, label: 'Top level' }, ...matching.slice(0, SHOWN)];

  return (
    <Modal
      opened
      onClose={onClose}
      returnFocus={false}
      title={`Move “${title}”`}
      closeButtonProps={{ 'aria-label': 'Close' }}
      centered
      size="lg"
    >
      <form
        className="move-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (choice) onMove(choice === 'top' ? null : choice);
        }}
      >
        <TextInput
          label="Find a place"
          aria-describedby={hintId}
          value={filter}
          onChange={(event) => setFilter(event.currentTarget.value)}
          data-autofocus
        />
        <p id={hintId} className="tree-hint">
          Type part of a title; the document goes last among the children of the place you choose.
        </p>
        {tree.isPending && <p role="status">Loading the documents…</p>}
        {tree.error && <p role="alert">{tree.error.message}</p>}
        <fieldset className="move-places">
          <legend>New place</legend>
          {options.map((place) => {
            const value = place.id ?? 'top';
            return (
              <label key={value} className="move-place">
                <input
                  type="radio"
                  name="place"
                  value={value}
                  checked={choice === value}
                  onChange={() => setChoice(value)}
                />
                {place.label}
                {here(place.id)}
              </label>
            );
          })}
        </fieldset>
        {matching.length > SHOWN && (
          <p className="move-more">
            Showing {SHOWN} of {matching.length} places; type more of a title to find the others.
          </p>
        )}
        {error && <p role="alert">{error}</p>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={!choice} loading={pending}>
            Move
          </Button>
        </Group>
      </form>
    </Modal>
  );
}
