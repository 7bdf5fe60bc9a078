/** Placeholder: search as you type, Ctrl/⌘-K (issue 27, point 6). */
export function SearchBox({ workspaceId }: { workspaceId: string }) {
  return <input type="search" aria-label="Search" data-workspace={workspaceId} />;
}
