import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { userKeys } from '../api/queries';
import type { User } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** How long a place must stay open before it is written (clicking through a tree writes once). */
const REMEMBER_AFTER_MS = 1_000;

/**
 * Remembers the workspace and document open now as the preferences `lastWorkspaceId` and
 * `lastDocumentId`, which `/` returns to. Opening a workspace's own page clears the document.
 * The write waits until the place has stayed open a moment, is skipped when the preferences
 * already say so, and never holds up or breaks the page: a failure is only logged.
 */
export function useRememberLocation(workspaceId: string | undefined, documentId: string | undefined): void {
  const api = useApi();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!workspaceId) return;
    const lastDocumentId = documentId ?? null;
    const known = queryClient.getQueryData<User>(userKeys.me)?.preference;
    if (known && known.lastWorkspaceId === workspaceId && (known.lastDocumentId ?? null) === lastDocumentId) return;
    const timer = window.setTimeout(() => {
      api
        .put<User>('/users/me/preferences', { lastWorkspaceId: workspaceId, lastDocumentId })
        .then((user) => queryClient.setQueryData(userKeys.me, user))
        .catch((error: Error) => console.warn('Could not remember the last place opened:', error.message));
    }, REMEMBER_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [api, queryClient, workspaceId, documentId]);
}
