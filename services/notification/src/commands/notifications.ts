import type { DatabasePool } from '@wiki/db';
import { notFound, presentPage } from '@wiki/http';
import {
  dismiss,
  markActioned,
  markAllRead,
  markRead,
  remove,
  type SortDirection,
  type SortField,
} from '../db/notifications.js';
import type { PreparedReads } from '../db/prepared-reads.js';
import type { NotificationStatus, NotificationType } from '../domain/notification.js';
import { presentNotification } from '../presenters/notification.js';

/** The use cases of spec 4.9, each for the signed-in user only: another user's notification is a 404. */

export interface PageRequest {
  page: number;
  size: number;
  /** `createdAt,DESC` and the like (the route's schema has checked the form). */
  sort?: string;
  status?: NotificationStatus;
  type?: NotificationType;
}

export async function listPage(reads: PreparedReads, userId: string, q: PageRequest) {
  const [field, direction] = (q.sort ?? 'createdAt,DESC').split(',') as [SortField, SortDirection];
  const { rows, total } = await reads.listNotifications({
    userId,
    status: q.status,
    type: q.type,
    page: q.page,
    size: q.size,
    sort: { field, direction },
  });
  return presentPage(rows.map(presentNotification), total, q.page, q.size);
}

export async function unreadCountOf(reads: PreparedReads, userId: string) {
  return { unreadCount: await reads.countUnread(userId) };
}

export async function read(pool: DatabasePool, userId: string, id: string) {
  const row = await markRead(pool, id, userId);
  if (!row) throw notFound('Notification');
  return presentNotification(row);
}

export async function actioned(pool: DatabasePool, userId: string, id: string) {
  const row = await markActioned(pool, id, userId);
  if (!row) throw notFound('Notification');
  return presentNotification(row);
}

export async function readAll(pool: DatabasePool, userId: string) {
  return { markedCount: await markAllRead(pool, userId) };
}

export async function dismissOne(pool: DatabasePool, userId: string, id: string) {
  if (!(await dismiss(pool, id, userId))) throw notFound('Notification');
}

export async function deleteOne(pool: DatabasePool, userId: string, id: string) {
  if (!(await remove(pool, id, userId))) throw notFound('Notification');
}
