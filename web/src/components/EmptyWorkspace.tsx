import { Button } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { documentKeys } from '../api/queries';
import type { WikiDocument } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** What an empty workspace says, and a way to start writing at once. */
export function EmptyWorkspace({ workspaceId }: { workspaceId: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => api.post<WikiDocument>('/documents', { workspaceId, title: '' }),
    onSuccess: async (doc) => {
      await queryClient.invalidateQueries({ queryKey: documentKeys.all });
      navigate(`/w/${workspaceId}/d/${doc.id}`);
    },
  });
  return (
    <div className="empty-state">
      <p>This workspace has no documents yet. Write the first one, or add documents from the sidebar.</p>
      {create.error && <p role="alert">{create.error.message}</p>}
      <Button onClick={() => create.mutate()} loading={create.isPending}>
        Write the first document
      </Button>
    </div>
  );
}
