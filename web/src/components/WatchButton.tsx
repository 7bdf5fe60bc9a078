import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { documentKeys, watchQuery } from '../api/queries';
import type { WatchState } from '../api/types';
import { useApi } from '../auth/AuthContext';

/**
 * The toggle button "Watch" (pressed while watching): a watcher is told of other people's edits
 * of the document (ARCHITECTURE 5.18). Disabled until the state is known.
 */
export function WatchButton({ documentId }: { documentId: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const hintId = useId();
  const state = useQuery(watchQuery(api, documentId));
  const path = `/documents/${documentId}/watch`;
  const toggle = useMutation({
    mutationFn: (watch: boolean) => (watch ? api.put<WatchState>(path) : api.delete<WatchState>(path)),
    onSuccess: (answer) => queryClient.setQueryData(documentKeys.watch(documentId), answer),
  });
  const watching = state.data?.watching ?? false;
  return (
    <>
      <button
        type="button"
        className="watch-button"
        aria-pressed={watching}
        aria-describedby={hintId}
        disabled={!state.data || toggle.isPending}
        onClick={() => toggle.mutate(!watching)}
      >
        {watching && <span aria-hidden="true">✓ </span>}
        Watch
      </button>
      <span id={hintId} hidden>
        {watching
          ? 'You are told when someone else edits this document'
          : 'Be told when someone else edits this document'}
      </span>
      {toggle.error && (
        <span role="alert" className="watch-error">
          Watching could not be changed: {toggle.error.message}
        </span>
      )}
    </>
  );
}
