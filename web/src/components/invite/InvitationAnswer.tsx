import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { invitationKeys, meQuery, workspaceKeys } from '../../api/queries';
import type { WorkspaceInvitation, WorkspaceMember } from '../../api/types';
import { useApi, useAuth } from '../../auth/AuthContext';

/** Accept (then into the workspace) or decline (then home), as the signed-in person. */
export function InvitationAnswer({ invitation }: { invitation: WorkspaceInvitation }) {
  const api = useApi();
  const { session } = useAuth();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const me = useQuery(meQuery(api));
  const path = `/invitations/${encodeURIComponent(invitation.token)}`;
  const here = `/invite/${encodeURIComponent(invitation.token)}`;

  const accept = useMutation({
    mutationFn: () => api.post<WorkspaceMember>(`${path}/accept`),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: invitationKeys.info(invitation.token) });
      // Into the workspace at once; its list (now with this one) is read again on the way.
      void queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      navigate(`/w/${invitation.workspace.id}`);
    },
  });
  const decline = useMutation({
    mutationFn: () => api.post(`${path}/decline`),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: invitationKeys.info(invitation.token) });
      navigate('/');
    },
  });

  const error = accept.error ?? decline.error;
  const busy = accept.isPending || decline.isPending;
  const wrongPerson = error instanceof ApiError && error.status === 403;
  const alreadyMember = error instanceof ApiError && error.reason === 'ALREADY_MEMBER';

  return (
    <div className="stack-form">
      <div className="form-actions">
        <button type="button" className="primary-button" disabled={busy} onClick={() => accept.mutate()}>
          Accept
        </button>
        <button type="button" disabled={busy} onClick={() => decline.mutate()}>
          Decline
        </button>
      </div>
      {/* Below the buttons: it arrives after them and must not move them under a pointer. */}
      {me.data && (
        <p className="hint">
          You are signed in as {me.data.name ? `${me.data.name} (${me.data.email})` : me.data.email}.
        </p>
      )}
      {error && <p role="alert">{error.message}</p>}
      {wrongPerson && (
        <div className="form-actions">
          <span>This invitation is for {invitation.email}.</span>
          <button type="button" onClick={() => void session.signInAgain(here)}>
            Sign in as someone else
          </button>
        </div>
      )}
      {alreadyMember && <Link to={`/w/${invitation.workspace.id}`}>Open {invitation.workspace.name}</Link>}
    </div>
  );
}
