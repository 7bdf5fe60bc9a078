import { Outlet, useParams } from 'react-router';
import { useRememberLocation } from '../hooks/useRememberLocation';
import { DocumentTree } from './DocumentTree';
import { NotificationsButton } from './NotificationsButton';
import { SearchBox } from './SearchBox';
import { UserMenu } from './UserMenu';
import { WorkspaceSwitcher } from './WorkspaceSwitcher';

/** The frame of every signed-in workspace page: header, the "Documents" sidebar, the page. */
export function WorkspaceLayout() {
  const { workspaceId, documentId } = useParams();
  useRememberLocation(workspaceId, documentId);
  if (!workspaceId) return null;
  return (
    <div className="app-frame">
      <header className="app-header">
        <WorkspaceSwitcher workspaceId={workspaceId} />
        <SearchBox workspaceId={workspaceId} />
        <NotificationsButton workspaceId={workspaceId} />
        <UserMenu />
      </header>
      <nav aria-label="Documents" className="app-sidebar">
        <DocumentTree workspaceId={workspaceId} />
      </nav>
      <div className="app-main">
        <Outlet />
      </div>
    </div>
  );
}
