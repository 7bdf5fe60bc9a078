import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { notificationKeys } from '../api/queries';
import type { AppNotification } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { formatDateTime } from '../locale/dates';
import { usePreferredLocale } from '../locale/usePreferredLocale';
import { removeNotification, replaceNotification } from '../notifications/cache';
import { notificationHref } from '../notifications/labels';
import { InvitationActions } from './InvitationActions';
import { JobNotificationActions } from './jobs/JobNotificationActions';

interface Props {
  notification: AppNotification;
  /** Following the notification's link leaves the panel. */
  onLeave: () => void;
}

/** One notification: what happened, who did it, where and when; read, dismiss, delete. */
export function NotificationEntry({ notification: n, onLeave }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const locale = usePreferredLocale();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const href = notificationHref(n);
  const unread = n.status === 'UNREAD';
  // Tells the buttons of one entry from the same buttons of the next (titles repeat: "You were mentioned").
  const subject = n.document ? `${n.title} in “${n.document.title}”` : n.title;

  const markRead = async () => {
    const read = await api.post<AppNotification>(`/notifications/${n.id}/read`);
    replaceNotification(queryClient, read);
    void queryClient.invalidateQueries({ queryKey: notificationKeys.count });
  };
  /** Runs an action, showing its failure here. */
  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const drop = (how: 'dismiss' | 'delete') =>
    act(async () => {
      if (how === 'dismiss') await api.post(`/notifications/${n.id}/dismiss`);
      else await api.delete(`/notifications/${n.id}`);
      removeNotification(queryClient, n.id);
      void queryClient.invalidateQueries({ queryKey: notificationKeys.count });
    });

  return (
    <li className={unread ? 'notification unread' : 'notification'}>
      <div className="notification-title">
        {unread && <span className="visually-hidden">Unread: </span>}
        {href ? (
          <Link
            to={href}
            onClick={() => {
              // Read on the way to the document; a failure there must not hold the person back.
              if (unread) void markRead().catch(() => undefined);
              onLeave();
            }}
          >
            {n.title}
          </Link>
        ) : (
          <strong>{n.title}</strong>
        )}
      </div>
      {n.message && <p className="notification-message">{n.message}</p>}
      <p className="notification-facts">
        {n.actor && <span>{n.actor.name}</span>}
        {n.document && <span>in “{n.document.title}”</span>}
        {!n.document && n.workspace && <span>in {n.workspace.name}</span>}
        <time dateTime={n.createdAt}>{formatDateTime(n.createdAt, locale)}</time>
      </p>
      {n.type === 'WORKSPACE_INVITATION' && n.references.invitationId && (
        <InvitationActions notification={n} invitationId={n.references.invitationId} />
      )}
      {n.type === 'JOB_FINISHED' && (
        <JobNotificationActions
          notification={n}
          subject={subject}
          onUsed={() => unread && void markRead().catch(() => undefined)}
          onLeave={onLeave}
        />
      )}
      <div className="notification-actions">
        {unread && !href && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void act(markRead)}
            aria-label={`Mark as read: ${subject}`}
          >
            Mark as read
          </button>
        )}
        <button type="button" disabled={busy} onClick={() => void drop('dismiss')} aria-label={`Dismiss: ${subject}`}>
          Dismiss
        </button>
        <button type="button" disabled={busy} onClick={() => void drop('delete')} aria-label={`Delete: ${subject}`}>
          Delete
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
    </li>
  );
}
