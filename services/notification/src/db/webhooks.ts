import { randomUUID } from 'node:crypto';
import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const WebhookRow = z.object({
  id: z.string(),
  workspaceId: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string(),
  enabled: z.boolean(),
  createdAt: z.string(),
  failingSince: z.string().nullable(),
});
export type WebhookRow = z.infer<typeof WebhookRow>;

const webhookColumns = sql.fragment`id, workspace_id AS "workspaceId", url, events, secret, enabled,
  created_at AS "createdAt", failing_since AS "failingSince"`;

export interface NewWebhook {
  workspaceId: string;
  url: string;
  events: readonly string[];
  enabled: boolean;
  secret: string;
  createdBy: string;
}

/**
 * Stores a webhook unless the workspace holds `max` already (null then). The workspace's
 * webhooks are counted under a lock on the workspace's id, so two creations cannot both pass.
 */
export async function insertWebhook(db: CommonQueryMethods, w: NewWebhook, max: number): Promise<WebhookRow | null> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${`webhooks:${w.workspaceId}`}))`);
  const count = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = ${w.workspaceId}`);
  if (count >= max) return null;
  return db.one(sql.type(WebhookRow)`
    INSERT INTO webhooks (id, workspace_id, url, events, secret, enabled, created_by)
    VALUES (${randomUUID()}, ${w.workspaceId}, ${w.url}, ${sql.array([...w.events], 'text')}, ${w.secret},
      ${w.enabled}, ${w.createdBy})
    RETURNING ${webhookColumns}`);
}

export function webhooksOf(db: CommonQueryMethods, workspaceId: string): Promise<readonly WebhookRow[]> {
  return db.any(sql.type(WebhookRow)`
    SELECT ${webhookColumns} FROM webhooks WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`);
}

export function webhookById(db: CommonQueryMethods, id: string): Promise<WebhookRow | null> {
  return db.maybeOne(sql.type(WebhookRow)`SELECT ${webhookColumns} FROM webhooks WHERE id = ${id}`);
}

/** The enabled webhooks of a workspace, for the deliveries of one of its events. */
export function enabledWebhooksOf(db: CommonQueryMethods, workspaceId: string): Promise<readonly WebhookRow[]> {
  return db.any(sql.type(WebhookRow)`
    SELECT ${webhookColumns} FROM webhooks WHERE workspace_id = ${workspaceId} AND enabled`);
}

export interface WebhookChange {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
}

/** Changes what is given; enabling a webhook forgets its failures (it gets three days again). */
export function updateWebhook(db: CommonQueryMethods, id: string, c: WebhookChange): Promise<WebhookRow | null> {
  return db.maybeOne(sql.type(WebhookRow)`
    UPDATE webhooks SET
      url = coalesce(${c.url ?? null}, url),
      events = coalesce(${c.events ? sql.array([...c.events], 'text') : null}, events),
      failing_since = CASE WHEN ${c.enabled ?? null}::boolean AND NOT enabled THEN NULL ELSE failing_since END,
      enabled = coalesce(${c.enabled ?? null}, enabled),
      updated_at = now()
    WHERE id = ${id}
    RETURNING ${webhookColumns}`);
}

/** Deletes the webhook and its delivery log; its queued jobs then find nothing to do. */
export async function deleteWebhook(db: CommonQueryMethods, id: string): Promise<boolean> {
  return (await db.query(sql.unsafe`DELETE FROM webhooks WHERE id = ${id}`)).rowCount > 0;
}

export async function deleteWebhooksOfWorkspace(db: CommonQueryMethods, workspaceId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM webhooks WHERE workspace_id = ${workspaceId}`);
}

/** A success: the webhook is failing no more. */
export async function markWebhookHealthy(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE webhooks SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`);
}

/**
 * A failed attempt: notes when the failures began, and disables the webhook when they began
 * `disableAfterMs` ago or earlier. True when this call disabled it (once: a later call finds it disabled).
 */
export async function noteWebhookFailure(db: CommonQueryMethods, id: string, disableAfterMs: number): Promise<boolean> {
  // The right-hand sides read the row as it was: a first failure never disables at once.
  const row = await db.maybeOne(sql.type(z.object({ enabled: z.boolean() }))`
    UPDATE webhooks SET
      failing_since = coalesce(failing_since, now()),
      enabled = coalesce(failing_since, now()) > now() - make_interval(secs => ${disableAfterMs / 1000}),
      updated_at = now()
    WHERE id = ${id} AND enabled
    RETURNING enabled`);
  return row !== null && !row.enabled;
}
