import { useCallback, useEffect, useState } from 'react';

const storageKey = (workspaceId: string) => `wiki.tree.expanded.${workspaceId}`;

function load(workspaceId: string): Set<string> {
  try {
    const saved = JSON.parse(sessionStorage.getItem(storageKey(workspaceId)) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((id) => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

/** The expanded documents of a workspace's tree, kept for the tab's session (a reload keeps them open). */
export function useExpanded(workspaceId: string) {
  const [expanded, setExpandedSet] = useState(() => load(workspaceId));
  useEffect(() => {
    sessionStorage.setItem(storageKey(workspaceId), JSON.stringify([...expanded]));
  }, [workspaceId, expanded]);

  const setExpanded = useCallback((id: string, open: boolean) => {
    setExpandedSet((current) => {
      if (current.has(id) === open) return current;
      const next = new Set(current);
      if (open) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const expandAll = useCallback((ids: readonly string[]) => {
    setExpandedSet((current) => (ids.every((id) => current.has(id)) ? current : new Set([...current, ...ids])));
  }, []);
  return { expanded, setExpanded, expandAll };
}
