/** Placeholder: switch and create workspaces (issue 27, point 3). */
export function WorkspaceSwitcher({ workspaceId }: { workspaceId: string }) {
  return <span data-workspace={workspaceId}>Workspace</span>;
}
