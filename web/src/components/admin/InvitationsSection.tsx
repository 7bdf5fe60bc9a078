import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { invitationsQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { type Party, whyNotInvite } from '../../members/rules';
import { InvitationRow } from './InvitationRow';
import { InviteForm } from './InviteForm';

/** Inviting people and the pending invitations (ADMIN and OWNER); others read why not. */
export function InvitationsSection({ workspaceId, actor }: { workspaceId: string; actor: Party }) {
  const api = useApi();
  const reason = whyNotInvite(actor);
  const invitations = useQuery({ ...invitationsQuery(api, workspaceId), enabled: reason === null });
  const [said, setSaid] = useState('');

  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {reason ? (
        <p className="hint">{reason}</p>
      ) : (
        <>
          <InviteForm workspaceId={workspaceId} actor={actor} />
          <h3>Pending invitations</h3>
          <p className="hint">
            Each is open until the date shown (Resend moves it on); one that expires leaves this list, and inviting the
            address again sends a new one.
          </p>
          {invitations.error && <p role="alert">{invitations.error.message}</p>}
          {invitations.isPending && <p>Loading invitations…</p>}
          {invitations.data?.length === 0 && (
            <p className="hint">No invitation is waiting for an answer. Invite someone with the form above.</p>
          )}
          {invitations.data && invitations.data.length > 0 && (
            <table className="settings-table">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Invited by</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {invitations.data.map((invitation) => (
                  <InvitationRow
                    key={invitation.id}
                    workspaceId={workspaceId}
                    invitation={invitation}
                    onSaid={setSaid}
                  />
                ))}
              </tbody>
            </table>
          )}
          <p role="status" className="quiet">
            {said}
          </p>
        </>
      )}
    </section>
  );
}
