// What a notification event or action changes in the TanStack Query cache, without asking again.
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { notificationKeys } from '../api/queries';
import type { AppNotification, Page } from '../api/types';

type Pages = InfiniteData<Page<AppNotification>>;

function mapLists(queryClient: QueryClient, change: (data: Pages, key: readonly unknown[]) => Pages): void {
  // A list answer already on its way (a refetch when the tab came back) may predate this change
  // and would undo it when it lands: it is cancelled and asked for again after the change.
  const racing = queryClient.isFetching({ queryKey: notificationKeys.lists }) > 0;
  for (const [key, data] of queryClient.getQueriesData<Pages>({ queryKey: notificationKeys.lists })) {
    if (data) queryClient.setQueryData<Pages>(key, change(data, key));
  }
  if (racing) void queryClient.invalidateQueries({ queryKey: notificationKeys.lists });
}

/** A new notification from the stream goes on top of the lists it belongs in, once. */
export function addNotification(queryClient: QueryClient, notification: AppNotification): void {
  mapLists(queryClient, (data, key) => {
    const type = key[2];
    if (type !== 'all' && type !== notification.type) return data;
    if (data.pages.some((page) => page.content.some((n) => n.id === notification.id))) return data;
    const [first, ...rest] = data.pages;
    if (!first) return data;
    return {
      ...data,
      pages: [{ ...first, content: [notification, ...first.content], totalElements: first.totalElements + 1 }, ...rest],
    };
  });
}

/** A notification as the API now has it (read, actioned) replaces the one in the lists. */
export function replaceNotification(queryClient: QueryClient, notification: AppNotification): void {
  mapLists(queryClient, (data) => ({
    ...data,
    pages: data.pages.map((page) => ({
      ...page,
      content: page.content.map((n) => (n.id === notification.id ? notification : n)),
    })),
  }));
}

/** Dismissed or deleted: gone from every list. */
export function removeNotification(queryClient: QueryClient, id: string): void {
  mapLists(queryClient, (data) => ({
    ...data,
    pages: data.pages.map((page) => ({ ...page, content: page.content.filter((n) => n.id !== id) })),
  }));
}

export function setUnreadCount(queryClient: QueryClient, unreadCount: number): void {
  queryClient.setQueryData(notificationKeys.count, { unreadCount });
}
