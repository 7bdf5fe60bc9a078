import { useMutation, useQueryClient } from '@tanstack/react-query';
import { memberKeys } from '../../api/queries';
import type { InvitationResult, WorkspaceInvitation } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { ROLE_LABEL } from '../../members/rules';
import { CopyButton } from '../CopyButton';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/**
 * Where the invitee answers: this app's own `/invite/<token>` (the e-mail carries the same path
 * under INVITE_URL, which is this address where the app is served at its public URL).
 */
export function invitationLink(token: string): string {
  return `${window.location.origin}/invite/${encodeURIComponent(token)}`;
}

/** A pending invitation (the API lists open ones only) with Resend (new expiry, same link), Copy link and Cancel. */
export function InvitationRow({
  workspaceId,
  invitation,
  onSaid,
}: {
  workspaceId: string;
  invitation: WorkspaceInvitation;
  onSaid: (message: string) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const base = `/workspaces/${workspaceId}/invitations/${invitation.id}`;
  const refresh = () => queryClient.invalidateQueries({ queryKey: memberKeys.invitations(workspaceId) });

  const resend = useMutation({
    mutationFn: () => api.post<InvitationResult>(`${base}/resend`),
    onSuccess: async (result) => {
      onSaid(
        `The invitation to ${result.email} is sent again; it now ends ${dateFormat.format(new Date(result.expiresAt))}.`,
      );
      await refresh();
    },
  });
  const cancel = useMutation({
    mutationFn: () => api.delete(base),
    onSuccess: async () => {
      onSaid(`The invitation to ${invitation.email} is cancelled.`);
      await refresh();
    },
  });
  const error = resend.error ?? cancel.error;

  return (
    <tr>
      <td>{invitation.email}</td>
      <td>{ROLE_LABEL[invitation.role]}</td>
      <td>{invitation.invitedBy?.name ?? '—'}</td>
      <td>{dateFormat.format(new Date(invitation.expiresAt))}</td>
      <td>
        <div className="form-actions">
          <button
            type="button"
            aria-label={`Resend the invitation to ${invitation.email}`}
            disabled={resend.isPending}
            onClick={() => resend.mutate()}
          >
            Resend
          </button>
          <CopyButton text={invitationLink(invitation.token)} label={`Copy link for ${invitation.email}`}>
            Copy link
          </CopyButton>
          <button
            type="button"
            aria-label={`Cancel the invitation to ${invitation.email}`}
            disabled={cancel.isPending}
            onClick={() => cancel.mutate()}
          >
            Cancel
          </button>
        </div>
        {error && (
          <span role="alert" className="reason">
            {error.message}
          </span>
        )}
      </td>
    </tr>
  );
}
