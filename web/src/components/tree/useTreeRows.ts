import { type QueryObserverResult, useQueries, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { documentListQuery } from '../../api/queries';
import type { DocumentListItem } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { type ChildList, flattenTree, type TreeRow } from './tree-rows';

/** A child list that failed to load, named for the alert that offers to try again. */
export interface ChildListError {
  parentId: string;
  error: Error;
  retry: () => void;
}

interface Children {
  lists: Map<string, ChildList>;
  errors: ChildListError[];
}

/**
 * The rows of the tree: the root documents, and the children of every expanded document, each list
 * fetched when it is first shown (lazy) and kept by TanStack Query (refetched on window focus and
 * when a change invalidates it).
 */
export function useTreeRows(workspaceId: string, expanded: ReadonlySet<string>) {
  const api = useApi();
  const roots = useQuery(documentListQuery(api, workspaceId, null));
  const expandedIds = useMemo(() => [...expanded], [expanded]);
  // Stable while the expanded set is, so that the lists (and the rows) are not rebuilt on every render.
  const combine = useCallback(
    (results: QueryObserverResult<DocumentListItem[]>[]): Children => {
      const lists = new Map<string, ChildList>();
      const errors: ChildListError[] = [];
      results.forEach((result, i) => {
        lists.set(expandedIds[i], { items: result.data, loading: result.isPending, error: result.error });
        if (result.error && !result.data) {
          errors.push({ parentId: expandedIds[i], error: result.error, retry: () => void result.refetch() });
        }
      });
      return { lists, errors };
    },
    [expandedIds],
  );
  const children = useQueries({
    queries: expandedIds.map((id) => documentListQuery(api, workspaceId, id)),
    combine,
  });
  const rows: TreeRow[] = useMemo(
    () => flattenTree(roots.data ?? [], children.lists, expanded),
    [roots.data, children.lists, expanded],
  );
  return { roots, rows, childErrors: children.errors };
}
