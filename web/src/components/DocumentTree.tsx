import './tree/tree.css';
import { DocumentTreePanel } from './tree/DocumentTreePanel';

/** The sidebar's document tree (issue 27, point 4); a workspace's tree starts afresh (focus, rename, dialogs). */
export function DocumentTree({ workspaceId }: { workspaceId: string }) {
  return <DocumentTreePanel key={workspaceId} workspaceId={workspaceId} />;
}
