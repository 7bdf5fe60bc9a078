/** Placeholder: the sidebar's document tree (issue 27, point 4). */
export function DocumentTree({ workspaceId }: { workspaceId: string }) {
  return <p data-workspace={workspaceId}>Documents</p>;
}
