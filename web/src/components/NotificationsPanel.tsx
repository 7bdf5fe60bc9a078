import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { notificationKeys, notificationsQuery, unreadCountQuery } from '../api/queries';
import type { AppNotification, NotificationType } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { NOTIFICATION_TYPE_LABELS } from '../notifications/labels';
import { NotificationEntry } from './NotificationEntry';

interface Props {
  opened: boolean;
  onClose: () => void;
}

/** The list of the person's notifications in a modal dialog: filter by type, mark all read, load more. */
export function NotificationsPanel({ opened, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();

  // A native modal dialog: the browser keeps focus inside, closes it on Escape and gives focus back.
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) element.showModal();
    if (!opened && element.open) element.close();
  }, [opened]);

  return (
    <dialog ref={dialog} aria-labelledby={headingId} className="dialog notifications-panel" onClose={onClose}>
      <div className="dialog-heading">
        <h2 id={headingId}>Notifications</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {opened && <NotificationsBody onLeave={onClose} />}
    </dialog>
  );
}

function NotificationsBody({ onLeave }: { onLeave: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [type, setType] = useState<NotificationType | null>(null);
  const filterId = useId();
  const list = useInfiniteQuery(notificationsQuery(api, type));
  const unread = useQuery(unreadCountQuery(api)).data?.unreadCount ?? 0;
  const readAll = useMutation({
    mutationFn: () => api.post<{ markedCount: number }>('/notifications/read-all'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });

  // A notification the stream added on top may come again on a later page: shown once.
  const seen = new Set<string>();
  const items: AppNotification[] = [];
  for (const page of list.data?.pages ?? [])
    for (const n of page.content)
      if (!seen.has(n.id)) {
        seen.add(n.id);
        items.push(n);
      }

  return (
    <div className="notifications-body">
      <div className="notifications-toolbar">
        <label htmlFor={filterId}>Type</label>
        <select
          id={filterId}
          value={type ?? ''}
          onChange={(event) => setType((event.target.value || null) as NotificationType | null)}
        >
          <option value="">All types</option>
          {Object.entries(NOTIFICATION_TYPE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" disabled={unread === 0 || readAll.isPending} onClick={() => readAll.mutate()}>
          Mark all as read
        </button>
      </div>
      {readAll.error && <p role="alert">{readAll.error.message}</p>}
      {list.isPending && <p className="loading">Loading notifications…</p>}
      {list.error && <p role="alert">{list.error.message}</p>}
      {list.isSuccess && items.length === 0 && (
        <p className="empty-state">
          {type
            ? `No ${NOTIFICATION_TYPE_LABELS[type].toLowerCase()} here. Choose “All types” to see everything.`
            : 'Nothing new. You are told here when someone mentions you, replies to your comments or invites you to a workspace.'}
        </p>
      )}
      {items.length > 0 && (
        <ul className="notification-list" aria-label="Notification list">
          {items.map((n) => (
            <NotificationEntry key={n.id} notification={n} onLeave={onLeave} />
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}
