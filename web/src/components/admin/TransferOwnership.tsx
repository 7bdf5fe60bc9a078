import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { memberKeys, workspaceKeys } from '../../api/queries';
import type { Workspace, WorkspaceMember } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { type Party, whyNotTransfer } from '../../members/rules';
import { ConfirmDialog } from '../ConfirmDialog';

interface Props {
  workspaceId: string;
  members: WorkspaceMember[];
  actor: Party;
}

/** The owner hands the workspace to another member (ARCHITECTURE 5.4) and becomes an admin. */
export function TransferOwnership({ workspaceId, members, actor }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const reasonId = useId();
  const others = members.filter((member) => member.userId !== actor.userId);
  const [chosen, setChosen] = useState('');
  const [asking, setAsking] = useState(false);
  const target = others.find((member) => member.userId === chosen) ?? others[0];
  const targetName = target ? target.userName || target.userEmail : '';

  const transfer = useMutation({
    mutationFn: (userId: string) => api.post<Workspace>(`/workspaces/${workspaceId}/transfer-ownership`, { userId }),
    onSuccess: async () => {
      setAsking(false);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: memberKeys.all(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
      ]);
    },
  });

  const reason = whyNotTransfer(actor) ?? (target ? null : 'Ownership goes to another member: invite someone first.');
  return (
    <section aria-labelledby="transfer-heading">
      <h2 id="transfer-heading">Transfer ownership</h2>
      <p className="hint">The new owner can delete the workspace or hand it on; you stay on as an admin.</p>
      <div className="form-actions">
        <label>
          New owner{' '}
          <select
            value={target?.userId ?? ''}
            disabled={reason !== null}
            aria-describedby={reason ? reasonId : undefined}
            onChange={(event) => setChosen(event.currentTarget.value)}
          >
            {others.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.userName ? `${member.userName} (${member.userEmail})` : member.userEmail}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={reason !== null}
          aria-describedby={reason ? reasonId : undefined}
          onClick={() => {
            transfer.reset();
            setAsking(true);
          }}
        >
          Transfer ownership
        </button>
      </div>
      {reason && (
        <p id={reasonId} className="reason">
          {reason}
        </p>
      )}
      {transfer.isSuccess && (
        <p role="status" className="quiet">
          {`The workspace now belongs to ${
            others.find((m) => m.userId === transfer.variables)?.userName ?? 'its new owner'
          }.`}
        </p>
      )}
      <ConfirmDialog
        opened={asking}
        title={`Make ${targetName} the owner?`}
        confirmLabel={`Make ${targetName} the owner`}
        busy={transfer.isPending}
        error={transfer.error?.message}
        onConfirm={() => target && transfer.mutate(target.userId)}
        onCancel={() => setAsking(false)}
      >
        <p>You become an admin. Only {targetName} will be able to delete the workspace or transfer it again.</p>
      </ConfirmDialog>
    </section>
  );
}
