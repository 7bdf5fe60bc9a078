import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { ApiError } from '../api/client';
import { membersQuery, meQuery, workspaceQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';
import { ArchiveWorkspace } from '../components/admin/ArchiveWorkspace';
import { DeleteWorkspace } from '../components/admin/DeleteWorkspace';
import { ExportWorkspace } from '../components/admin/ExportWorkspace';
import { InvitationsSection } from '../components/admin/InvitationsSection';
import { LeaveWorkspace } from '../components/admin/LeaveWorkspace';
import { MembersSection } from '../components/admin/MembersSection';
import { TransferOwnership } from '../components/admin/TransferOwnership';
import { WebhooksSection } from '../components/admin/WebhooksSection';
import { WorkspaceDetailsForm } from '../components/admin/WorkspaceDetailsForm';
import { isAdmin, type Party, ROLE_LABEL, whyNotUpdateWorkspace } from '../members/rules';
import { NotFoundPage } from './NotFoundPage';

/**
 * `/w/<workspaceId>/settings`: members, invitations, the workspace's own settings, webhooks, export,
 * archive and delete, and leaving. What the caller may not do is shown disabled with the reason (ARCHITECTURE 3).
 */
export function WorkspaceSettingsPage() {
  const { workspaceId = '' } = useParams();
  const api = useApi();
  const me = useQuery(meQuery(api));
  const workspace = useQuery(workspaceQuery(api, workspaceId));
  const members = useQuery(membersQuery(api, workspaceId));

  const notFound = [workspace.error, members.error].some((e) => e instanceof ApiError && e.status === 404);
  if (notFound) return <NotFoundPage what="workspace" />;
  // A failed background refetch keeps what is shown (and the open panels' state); only a first
  // load that failed replaces the page.
  const error =
    (!workspace.data && workspace.error) || (!members.data && members.error) || (!me.data && me.error) || null;
  if (error) {
    return (
      <main className="page">
        <h1>Workspace settings</h1>
        <p role="alert">{error.message}</p>
      </main>
    );
  }
  if (!workspace.data || !members.data || !me.data) return <p className="loading">Loading the settings…</p>;

  const ws = workspace.data;
  const mine = members.data.find((member) => member.userId === me.data.id);
  const actor: Party = { userId: me.data.id, role: mine?.role ?? 'VIEWER' };
  const admin = isAdmin(actor.role);
  return (
    <main className="page settings-page">
      <h1>Workspace settings</h1>
      <p className="page-lead">
        {ws.icon && <span aria-hidden="true">{ws.icon} </span>}
        {ws.name}
      </p>
      <p>
        Your role here: <strong>{ROLE_LABEL[actor.role]}</strong>
      </p>
      <MembersSection workspaceId={ws.id} members={members.data} actor={actor} />
      <InvitationsSection workspaceId={ws.id} actor={actor} />
      <section aria-labelledby="workspace-heading">
        <h2 id="workspace-heading">Workspace</h2>
        {admin ? (
          <WorkspaceDetailsForm key={ws.id} workspace={ws} />
        ) : (
          <>
            <dl className="facts">
              <dt>Name</dt>
              <dd>{ws.name}</dd>
              <dt>Description</dt>
              <dd>{ws.description || '—'}</dd>
            </dl>
            <p className="hint">{whyNotUpdateWorkspace(actor)}</p>
          </>
        )}
      </section>
      <WebhooksSection workspaceId={ws.id} actor={actor} />
      <ExportWorkspace workspaceId={ws.id} name={ws.name} />
      {admin && <TransferOwnership workspaceId={ws.id} members={members.data} actor={actor} />}
      <section aria-labelledby="archive-heading">
        <h2 id="archive-heading">Archive or delete</h2>
        {admin ? <ArchiveWorkspace workspace={ws} /> : <p className="hint">{whyNotUpdateWorkspace(actor)}</p>}
        <DeleteWorkspace workspace={ws} actor={actor} />
      </section>
      <LeaveWorkspace workspaceId={ws.id} workspaceName={ws.name} actor={actor} />
    </main>
  );
}
