import './NotificationsPanel.css';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { unreadCountQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';
import { useNotificationStream } from '../notifications/useNotificationStream';
import { NotificationsPanel } from './NotificationsPanel';

/**
 * The header's bell: its name and badge carry the unread count, kept live over the stream (which
 * also carries the tree events of `workspaceId`).
 */
export function NotificationsButton({ workspaceId }: { workspaceId: string }) {
  const api = useApi();
  useNotificationStream(workspaceId);
  const count = useQuery(unreadCountQuery(api)).data?.unreadCount;
  const [open, setOpen] = useState(false);
  const name = count === undefined ? 'Notifications' : `Notifications, ${count} unread`;
  return (
    <>
      <button
        type="button"
        className="notifications-button"
        aria-label={name}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20" className="bell">
          <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z" />
        </svg>
        {count !== undefined && count > 0 && <span className="notifications-badge">{count > 99 ? '99+' : count}</span>}
      </button>
      <NotificationsPanel opened={open} onClose={() => setOpen(false)} />
    </>
  );
}
