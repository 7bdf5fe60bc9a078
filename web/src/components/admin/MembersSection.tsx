import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { memberKeys } from '../../api/queries';
import type { WorkspaceMember } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { isAdmin, type Party } from '../../members/rules';
import { ConfirmDialog } from '../ConfirmDialog';
import { MemberRow } from './MemberRow';

interface Props {
  workspaceId: string;
  members: WorkspaceMember[];
  actor: Party;
}

/** The members table; admins change roles and remove people (after a confirmation). */
export function MembersSection({ workspaceId, members, actor }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [said, setSaid] = useState('');
  const [removing, setRemoving] = useState<WorkspaceMember | null>(null);
  const admin = isAdmin(actor.role);

  const remove = useMutation({
    mutationFn: (member: WorkspaceMember) => api.delete(`/workspaces/${workspaceId}/members/${member.id}`),
    onSuccess: async (_, member) => {
      setRemoving(null);
      setSaid(`${member.userName || member.userEmail} is no longer a member.`);
      await queryClient.invalidateQueries({ queryKey: memberKeys.all(workspaceId) });
    },
  });

  const sorted = [...members].sort(
    (a, b) => a.userName.localeCompare(b.userName) || a.userEmail.localeCompare(b.userEmail),
  );
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members ({members.length})</h2>
      {!admin && (
        <p className="hint">
          You can see who is here. Only admins and the owner can change roles, remove members or invite people.
        </p>
      )}
      <table className="settings-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {sorted.map((member) => (
            <MemberRow
              key={member.id}
              workspaceId={workspaceId}
              member={member}
              actor={actor}
              onRemove={(target) => {
                remove.reset();
                setRemoving(target);
              }}
              onSaid={setSaid}
            />
          ))}
        </tbody>
      </table>
      <p role="status" className="quiet">
        {said}
      </p>
      <ConfirmDialog
        opened={removing !== null}
        title={`Remove ${removing?.userName || removing?.userEmail || 'this member'}?`}
        confirmLabel="Remove member"
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => removing && remove.mutate(removing)}
        onCancel={() => setRemoving(null)}
      >
        <p>They lose access to this workspace and its documents at once. You can invite them again later.</p>
      </ConfirmDialog>
    </section>
  );
}
