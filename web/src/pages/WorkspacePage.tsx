import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { documentListQuery, workspaceQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';
import { EmptyWorkspace } from '../components/EmptyWorkspace';
import { formatDateTime } from '../locale/dates';
import { usePreferredLocale } from '../locale/usePreferredLocale';
import { NotFoundPage } from './NotFoundPage';

/** `/w/<workspaceId>`: the workspace's name and description and its top-level documents, newest first. */
export function WorkspacePage() {
  const { workspaceId = '' } = useParams();
  const api = useApi();
  const locale = usePreferredLocale();
  const workspace = useQuery(workspaceQuery(api, workspaceId));
  const documents = useQuery(documentListQuery(api, workspaceId, null));

  if (workspace.error instanceof ApiError && workspace.error.status === 404) return <NotFoundPage what="workspace" />;
  if (workspace.error) {
    return (
      <main className="page">
        <h1>This workspace could not be opened</h1>
        <p role="alert">{workspace.error.message}</p>
      </main>
    );
  }
  if (!workspace.data) return <p className="loading">Loading the workspace…</p>;

  const recent = [...(documents.data ?? [])].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return (
    <main className="page">
      <h1>
        {workspace.data.icon && <span aria-hidden="true">{workspace.data.icon} </span>}
        {workspace.data.name}
      </h1>
      {workspace.data.description && <p className="page-lead">{workspace.data.description}</p>}
      <section aria-labelledby="top-level-documents">
        <h2 id="top-level-documents">Top-level documents</h2>
        {documents.error && <p role="alert">{documents.error.message}</p>}
        {documents.isPending && <p>Loading documents…</p>}
        {documents.data && recent.length === 0 && <EmptyWorkspace workspaceId={workspaceId} />}
        {recent.length > 0 && (
          <ul className="document-list">
            {recent.map((doc) => (
              <li key={doc.id}>
                <Link to={`/w/${workspaceId}/d/${doc.id}`}>
                  {doc.icon && <span aria-hidden="true">{doc.icon} </span>}
                  {doc.title || 'Untitled'}
                </Link>
                <span className="document-meta">
                  Updated {formatDateTime(doc.updatedAt, locale)}
                  {doc.childCount > 0 && ` · ${doc.childCount} ${doc.childCount === 1 ? 'subpage' : 'subpages'}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
