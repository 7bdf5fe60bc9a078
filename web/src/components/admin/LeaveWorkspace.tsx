import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { workspaceKeys } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { type Party, whyNotLeave } from '../../members/rules';
import { ConfirmDialog } from '../ConfirmDialog';

/** Leaving the workspace (not for its owner, who transfers it first); home afterwards. */
export function LeaveWorkspace({
  workspaceId,
  workspaceName,
  actor,
}: {
  workspaceId: string;
  workspaceName: string;
  actor: Party;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const reasonId = useId();
  const [asking, setAsking] = useState(false);
  const reason = whyNotLeave(actor);

  const leave = useMutation({
    mutationFn: () => api.post(`/workspaces/${workspaceId}/members/leave`),
    onSuccess: async () => {
      setAsking(false);
      queryClient.removeQueries({ queryKey: workspaceKeys.detail(workspaceId) });
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      navigate('/');
    },
  });

  return (
    <section aria-labelledby="leave-heading">
      <h2 id="leave-heading">Leave the workspace</h2>
      <button
        type="button"
        disabled={reason !== null}
        aria-describedby={reason ? reasonId : undefined}
        onClick={() => {
          leave.reset();
          setAsking(true);
        }}
      >
        Leave workspace
      </button>
      {reason && (
        <p id={reasonId} className="reason">
          {reason}
        </p>
      )}
      <ConfirmDialog
        opened={asking}
        title={`Leave ${workspaceName}?`}
        confirmLabel="Leave"
        busy={leave.isPending}
        error={leave.error?.message}
        onConfirm={() => leave.mutate()}
        onCancel={() => setAsking(false)}
      >
        <p>You lose access to its documents. An admin can invite you again.</p>
      </ConfirmDialog>
    </section>
  );
}
