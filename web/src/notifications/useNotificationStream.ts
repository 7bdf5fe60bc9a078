import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { documentKeys, jobKeys, notificationKeys } from '../api/queries';
import type { AppNotification } from '../api/types';
import { useApi, useAuth } from '../auth/AuthContext';
import { addNotification, setUnreadCount } from './cache';
import { LiveNotifications } from './live-stream';

/**
 * What a workspace's sidebar and pages read about its documents' places, titles, icons and open
 * threads: read again (those on screen) when the stream says the tree changed.
 */
function treeChanged(queryClient: QueryClient, workspaceId: string): void {
  for (const queryKey of [
    [...documentKeys.all, 'list', workspaceId],
    documentKeys.archived(workspaceId),
    documentKeys.tree(workspaceId),
    [...documentKeys.all, 'ancestors'],
  ]) {
    void queryClient.invalidateQueries({ queryKey });
  }
}

/**
 * Keeps the unread count and the lists live while a signed-in page is open (one stream per tab),
 * and the document tree of `workspaceId`: others' creations, moves, renames, archiving and
 * deletions arrive as `tree` events on the same stream.
 */
export function useNotificationStream(workspaceId: string | null): void {
  const api = useApi();
  const { signedIn } = useAuth();
  const queryClient = useQueryClient();
  const live = useRef<LiveNotifications | null>(null);
  const watched = useRef(workspaceId);
  useEffect(() => {
    if (!signedIn) return;
    let opened = 0;
    const stream = new LiveNotifications(api, {
      onOpen: () => {
        // A reopened stream sends what it missed, but not what was read or dismissed meanwhile,
        // nor the tree changes it did not carry.
        if (opened++ === 0) return;
        void queryClient.invalidateQueries({ queryKey: notificationKeys.lists });
        if (watched.current) treeChanged(queryClient, watched.current);
      },
      onMessage: (message) => {
        if (message.event === 'unread-count') {
          setUnreadCount(queryClient, (JSON.parse(message.data) as { unreadCount: number }).unreadCount);
        } else if (message.event === 'notification') {
          const notification = JSON.parse(message.data) as AppNotification;
          addNotification(queryClient, notification);
          // A job shown somewhere learns it finished now rather than at its next poll.
          const { jobId } = notification.metadata;
          if (notification.type === 'JOB_FINISHED' && typeof jobId === 'string') {
            void queryClient.invalidateQueries({ queryKey: jobKeys.detail(jobId) });
          }
        } else if (message.event === 'tree') {
          treeChanged(queryClient, (JSON.parse(message.data) as { workspaceId: string }).workspaceId);
        }
      },
    });
    stream.watchTree(watched.current);
    live.current = stream;
    stream.start();
    return () => {
      live.current = null;
      stream.stop();
    };
  }, [api, signedIn, queryClient]);
  useEffect(() => {
    watched.current = workspaceId;
    live.current?.watchTree(workspaceId);
  }, [workspaceId]);
}
