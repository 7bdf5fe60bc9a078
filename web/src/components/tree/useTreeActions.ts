import { useMutation, useQueryClient } from '@tanstack/react-query';
import { documentKeys } from '../../api/queries';
import type { WikiDocument } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import type { MoveRequest } from './moves';

/** A change the tree makes through the API. */
export type TreeAction =
  | { kind: 'create'; parentId: string | null }
  | { kind: 'rename'; id: string; title: string }
  | { kind: 'move'; id: string; move: MoveRequest }
  | { kind: 'archive'; id: string }
  | { kind: 'restore'; id: string }
  | { kind: 'delete'; id: string; withChildren: boolean };

export type ActionResult = { ok: true; doc?: WikiDocument } | { ok: false; doc?: undefined };

/**
 * The tree's writes (spec 4.4): one mutation whose every outcome refreshes what the tree and the
 * pages read about documents. A failure is kept (its ApiError message) for the tree's alert.
 */
export function useTreeActions(workspaceId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: async (action: TreeAction): Promise<WikiDocument | undefined> => {
      switch (action.kind) {
        case 'create':
          return api.post<WikiDocument>('/documents', { workspaceId, parentId: action.parentId, title: '' });
        case 'rename':
          return api.put<WikiDocument>(`/documents/${action.id}`, { title: action.title });
        case 'move':
          return api.put<WikiDocument>(`/documents/${action.id}/move`, action.move);
        case 'archive':
        case 'restore':
          return api.put<WikiDocument>(`/documents/${action.id}`, { isArchived: action.kind === 'archive' });
        case 'delete':
          await api.delete(action.withChildren ? `/documents/${action.id}/cascade` : `/documents/${action.id}`);
          return undefined;
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: documentKeys.all }),
  });
  return {
    /** Runs the action; `ok` false when it failed (the error is then kept in `error`). */
    run: (action: TreeAction): Promise<ActionResult> =>
      mutation.mutateAsync(action).then(
        (doc) => ({ ok: true, doc }),
        () => ({ ok: false }),
      ),
    error: mutation.error,
    dismissError: mutation.reset,
    pending: mutation.isPending,
  };
}
