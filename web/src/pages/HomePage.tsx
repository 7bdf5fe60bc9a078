import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { documentQuery, meQuery, workspacesQuery } from '../api/queries';
import type { Preferences, Workspace } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { NewWorkspaceForm } from '../components/NewWorkspaceForm';

/** The workspace `/` opens: the last one while the person still has it, else their first. */
function workspaceToOpen(workspaces: Workspace[], preference: Preferences): Workspace | undefined {
  const open = workspaces.filter((workspace) => !workspace.isArchived);
  return (
    open.find((workspace) => workspace.id === preference.lastWorkspaceId) ??
    open.find((workspace) => workspace.isDefault) ??
    open[0]
  );
}

/**
 * `/`: back to the last workspace and document (preferences `lastWorkspaceId`/`lastDocumentId`)
 * when they still exist, else the first workspace; someone with none is asked to make one.
 */
export function HomePage() {
  const api = useApi();
  const me = useQuery(meQuery(api));
  const workspaces = useQuery(workspacesQuery(api));
  const workspace = workspaces.data && me.data ? workspaceToOpen(workspaces.data, me.data.preference) : undefined;
  const lastDocumentId =
    workspace && workspace.id === me.data?.preference.lastWorkspaceId ? me.data.preference.lastDocumentId : null;

  // The last document counts only while it is still there, in that workspace, and not archived
  // (a 404 or a failure to ask just means the workspace's own page).
  const lastDocument = useQuery({ ...documentQuery(api, lastDocumentId ?? ''), enabled: Boolean(lastDocumentId) });

  const error = me.error ?? workspaces.error;
  if (error) {
    return (
      <main className="centered-page">
        <h1>Your wiki could not be opened</h1>
        <p role="alert">{error.message}</p>
        <button type="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (!me.data || !workspaces.data || (lastDocumentId && lastDocument.isPending)) {
    return <p className="loading">Opening your wiki…</p>;
  }
  if (!workspace) {
    return (
      <main className="centered-page">
        <h1>Create your first workspace</h1>
        <p>A workspace holds your team's documents. Give it a name; you can invite people to it afterwards.</p>
        <NewWorkspaceForm submitLabel="Create your first workspace" />
      </main>
    );
  }
  const doc = lastDocument.data;
  if (doc && doc.workspaceId === workspace.id && !doc.isArchived) {
    return <Navigate to={`/w/${workspace.id}/d/${doc.id}`} replace />;
  }
  return <Navigate to={`/w/${workspace.id}`} replace />;
}
