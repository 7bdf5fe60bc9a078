import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ancestorsQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';

/**
 * Opens the tree down to the document on the page (its ancestors expanded, once per document) and
 * scrolls it into view when its row appears, so that a link or a reload shows where one is.
 */
export function useRevealCurrent(
  currentId: string | null,
  indexOf: (id: string) => number,
  rootsLoaded: boolean,
  expandAll: (ids: readonly string[]) => void,
  scrollToIndex: (index: number) => void,
) {
  const api = useApi();
  const queryClient = useQueryClient();
  const asked = useRef<string | null>(null);
  const toScroll = useRef<string | null>(null);
  const index = currentId ? indexOf(currentId) : -1;

  useEffect(() => {
    if (!currentId || !rootsLoaded || asked.current === currentId) return;
    asked.current = currentId;
    toScroll.current = currentId;
    if (index >= 0) return;
    queryClient
      .fetchQuery(ancestorsQuery(api, currentId))
      .then((chain) => expandAll(chain.slice(0, -1).map((step) => step.id)))
      .catch(() => {
        // A document that is gone or archived has no place in the tree to show.
      });
  }, [currentId, rootsLoaded, index, api, queryClient, expandAll]);

  useEffect(() => {
    if (toScroll.current && toScroll.current === currentId && index >= 0) {
      toScroll.current = null;
      scrollToIndex(index);
    }
  }, [currentId, index, scrollToIndex]);
}
