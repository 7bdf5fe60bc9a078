import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { workspaceKeys } from '../../api/queries';
import type { Workspace } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { ConfirmDialog } from '../ConfirmDialog';

/** Archive (asks first: the workspace closes for everyone) and unarchive (PUT isArchived). */
export function ArchiveWorkspace({ workspace }: { workspace: Workspace }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);

  const setArchived = useMutation({
    mutationFn: (isArchived: boolean) => api.put<Workspace>(`/workspaces/${workspace.id}`, { isArchived }),
    onSuccess: async (saved) => {
      setAsking(false);
      queryClient.setQueryData(workspaceKeys.detail(saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
    },
  });

  if (workspace.isArchived) {
    return (
      <div className="stack-form">
        <p>
          This workspace is archived: its documents cannot be opened, and it is listed under “Archived workspaces” in
          the workspace menu. Unarchive it to open it again for every member.
        </p>
        <div>
          <button type="button" disabled={setArchived.isPending} onClick={() => setArchived.mutate(false)}>
            Unarchive workspace
          </button>
        </div>
        {setArchived.error && <p role="alert">{setArchived.error.message}</p>}
      </div>
    );
  }
  return (
    <div className="stack-form">
      <p>Archiving closes the workspace for every member until an admin unarchives it; nothing is deleted.</p>
      <div>
        <button
          type="button"
          onClick={() => {
            setArchived.reset();
            setAsking(true);
          }}
        >
          Archive workspace
        </button>
      </div>
      <ConfirmDialog
        opened={asking}
        title={`Archive ${workspace.name}?`}
        confirmLabel="Archive"
        busy={setArchived.isPending}
        error={setArchived.error?.message}
        onConfirm={() => setArchived.mutate(true)}
        onCancel={() => setAsking(false)}
      >
        <p>
          Its documents can no longer be opened, edited or read on their public links until the workspace is unarchived
          here.
        </p>
      </ConfirmDialog>
    </div>
  );
}
