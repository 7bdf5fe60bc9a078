import { randomUUID } from 'node:crypto';
import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { NotificationRow, notificationColumns } from './notifications.js';

/** The e-mail outbox and digest items of migration 0005. */

export type MailKind = 'notification' | 'invitation' | 'digest';

export interface NewMail {
  key: string;
  kind: MailKind;
  userId: string | null;
  notificationId?: string | null;
  payload?: Record<string, unknown>;
}

/** Writes the message to send unless one with its key exists (a redelivered event); true when written. */
export async function insertMail(db: CommonQueryMethods, mail: NewMail): Promise<boolean> {
  const made = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO mail_outbox (id, key, kind, user_id, notification_id, payload)
    VALUES (${randomUUID()}, ${mail.key}, ${mail.kind}, ${mail.userId}, ${mail.notificationId ?? null},
      ${sql.jsonb(JSON.parse(JSON.stringify(mail.payload ?? {})))})
    ON CONFLICT (key) DO NOTHING
    RETURNING id`);
  return made !== null;
}

export async function insertDigestItem(db: CommonQueryMethods, notificationId: string, userId: string) {
  await db.query(sql.unsafe`
    INSERT INTO mail_digest_items (notification_id, user_id) VALUES (${notificationId}, ${userId})
    ON CONFLICT (notification_id) DO NOTHING`);
}

const Claimed = z.object({ id: z.string(), key: z.string() });

/**
 * Up to `limit` unsent messages never queued, or queued longer than `staleMs` ago (the queue lost
 * the job, or gave up on it), stamped as queued now. SKIP LOCKED: replicas take different rows.
 */
export function claimForQueue(db: CommonQueryMethods, staleMs: number, limit: number) {
  return db.any(sql.type(Claimed)`
    UPDATE mail_outbox SET queued_at = now()
    WHERE id IN (
      SELECT id FROM mail_outbox
      WHERE sent_at IS NULL AND (queued_at IS NULL OR queued_at < now() - make_interval(secs => ${staleMs / 1000}))
      ORDER BY queued_at NULLS FIRST, created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, key`);
}

export const MailRow = z.object({
  id: z.string(),
  key: z.string(),
  kind: z.enum(['notification', 'invitation', 'digest']),
  userId: z.string().nullable(),
  notificationId: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  sentAt: z.string().nullable(),
});
export type MailRow = z.infer<typeof MailRow>;

export function findMail(db: CommonQueryMethods, id: string): Promise<MailRow | null> {
  return db.maybeOne(sql.type(MailRow)`
    SELECT id, key, kind, user_id AS "userId", notification_id AS "notificationId", payload, sent_at AS "sentAt"
    FROM mail_outbox WHERE id = ${id}`);
}

/** Done: sent (`outcome` null) or dropped, with why (e.g. `no verified address`). */
export async function markMailDone(db: CommonQueryMethods, id: string, outcome: string | null) {
  await db.query(sql.unsafe`UPDATE mail_outbox SET sent_at = now(), outcome = ${outcome} WHERE id = ${id}`);
}

/** Users with digest items made before `before` that no digest has taken yet. */
export function usersWithDueDigests(db: CommonQueryMethods, before: Date): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT DISTINCT user_id FROM mail_digest_items WHERE digest_key IS NULL AND created_at < ${before.toISOString()}`);
}

/** The user's waiting items made before `before` now belong to the digest `key`; how many. */
export async function assignDigestItems(db: CommonQueryMethods, userId: string, key: string, before: Date) {
  const result = await db.query(sql.unsafe`
    UPDATE mail_digest_items SET digest_key = ${key}
    WHERE user_id = ${userId} AND digest_key IS NULL AND created_at < ${before.toISOString()}`);
  return result.rowCount;
}

/** The notifications a digest took, oldest first. */
export function notificationsOfDigest(db: CommonQueryMethods, key: string): Promise<readonly NotificationRow[]> {
  return db.any(sql.type(NotificationRow)`
    SELECT ${notificationColumns} FROM notifications
    WHERE id IN (SELECT notification_id FROM mail_digest_items WHERE digest_key = ${key})
    ORDER BY created_at, id`);
}

export function findNotification(db: CommonQueryMethods, id: string): Promise<NotificationRow | null> {
  return db.maybeOne(sql.type(NotificationRow)`SELECT ${notificationColumns} FROM notifications WHERE id = ${id}`);
}
