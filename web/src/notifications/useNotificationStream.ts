import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { notificationKeys } from '../api/queries';
import type { AppNotification } from '../api/types';
import { useApi, useAuth } from '../auth/AuthContext';
import { addNotification, setUnreadCount } from './cache';
import { LiveNotifications } from './live-stream';

/** Keeps the unread count and the lists live while a signed-in page is open (one stream per tab). */
export function useNotificationStream(): void {
  const api = useApi();
  const { signedIn } = useAuth();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!signedIn) return;
    let opened = 0;
    const live = new LiveNotifications(api, {
      onOpen: () => {
        // A reopened stream sends what it missed, but not what was read or dismissed meanwhile.
        if (opened++ > 0) void queryClient.invalidateQueries({ queryKey: notificationKeys.lists });
      },
      onMessage: (message) => {
        if (message.event === 'unread-count') {
          setUnreadCount(queryClient, (JSON.parse(message.data) as { unreadCount: number }).unreadCount);
        } else if (message.event === 'notification') {
          addNotification(queryClient, JSON.parse(message.data) as AppNotification);
        }
      },
    });
    live.start();
    return () => live.stop();
  }, [api, signedIn, queryClient]);
}
