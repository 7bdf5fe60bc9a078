import { randomBytes } from 'node:crypto';
import type { DatabasePool } from '@wiki/db';
import { badRequest, invalidField, notFound, presentPage, refusal } from '@wiki/http';
import type { MembershipAccess } from '@wiki/projections';
import { deliveriesPage, reopenDelivery } from '../db/webhook-deliveries.js';
import {
  deleteWebhook,
  insertWebhook,
  updateWebhook,
  type WebhookChange,
  type WebhookRow,
  webhookById,
  webhooksOf,
} from '../db/webhooks.js';
import { filterProblem } from '../domain/webhook-events.js';
import { presentDelivery, presentWebhook } from '../presenters/webhook.js';
import type { WebhookSettings } from '../settings.js';
import { checkTarget, type Resolve, TargetRefusedError } from '../webhooks/address-guard.js';
import type { WebhookQueue } from '../webhooks/queue.js';

/** Webhooks a workspace may have. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

export interface WebhookContext {
  pool: DatabasePool;
  membership: MembershipAccess;
  queue: WebhookQueue;
  settings: WebhookSettings;
  resolve?: Resolve;
}

export interface Caller {
  userId: string;
  requestId?: string;
}

/** Webhooks are for ADMIN and above: a non-member gets 404, a lower role 403 (ARCHITECTURE 3). */
const requireAdmin = (ctx: WebhookContext, workspaceId: string, caller: Caller, what = 'Workspace') =>
  ctx.membership.requireRole(workspaceId, caller.userId, 'ADMIN', what, caller.requestId);

/** The webhook when the caller administers its workspace; else 404 or 403 as for the workspace. */
async function ownWebhook(ctx: WebhookContext, id: string, caller: Caller): Promise<WebhookRow> {
  const row = await webhookById(ctx.pool, id);
  if (!row) throw notFound('Webhook');
  await requireAdmin(ctx, row.workspaceId, caller, 'Webhook');
  return row;
}

/** A 400 naming the filter that is not one (and a repeated one). */
function checkFilters(events: readonly string[]): string[] {
  const problems = events.map(filterProblem).filter((p): p is string => p !== null);
  if (problems.length > 0) throw invalidField('events', problems.join('; '));
  return [...new Set(events)];
}

/** A 400 when the URL's form or any address its host resolves to is refused. */
async function checkUrl(ctx: WebhookContext, url: string): Promise<void> {
  try {
    await checkTarget(url, ctx.settings.allowedHosts, ctx.resolve);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw invalidField('url', error.message);
    throw error;
  }
}

export async function listWebhooks(ctx: WebhookContext, workspaceId: string, caller: Caller) {
  await requireAdmin(ctx, workspaceId, caller);
  return (await webhooksOf(ctx.pool, workspaceId)).map(presentWebhook);
}

export interface NewWebhookInput {
  url: string;
  events: string[];
  enabled?: boolean;
}

/** The webhook with its secret: 32 random bytes in hex, shown in this answer only. */
export async function createWebhook(ctx: WebhookContext, workspaceId: string, caller: Caller, input: NewWebhookInput) {
  await requireAdmin(ctx, workspaceId, caller);
  const events = checkFilters(input.events);
  await checkUrl(ctx, input.url);
  const secret = randomBytes(32).toString('hex');
  const row = await ctx.pool.transaction((tx) =>
    insertWebhook(
      tx,
      { workspaceId, url: input.url, events, enabled: input.enabled ?? true, secret, createdBy: caller.userId },
      MAX_WEBHOOKS_PER_WORKSPACE,
    ),
  );
  if (!row) {
    throw refusal('WEBHOOK_LIMIT_REACHED', `A workspace may have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks`);
  }
  return { ...presentWebhook(row), secret };
}

export async function getWebhook(ctx: WebhookContext, id: string, caller: Caller) {
  return presentWebhook(await ownWebhook(ctx, id, caller));
}

export async function changeWebhook(ctx: WebhookContext, id: string, caller: Caller, change: WebhookChange) {
  await ownWebhook(ctx, id, caller);
  if (change.url === undefined && change.events === undefined && change.enabled === undefined) {
    throw badRequest('Nothing to change: give url, events or enabled');
  }
  const events = change.events ? checkFilters(change.events) : undefined;
  if (change.url !== undefined) await checkUrl(ctx, change.url);
  const row = await updateWebhook(ctx.pool, id, { ...change, events });
  if (!row) throw notFound('Webhook');
  return presentWebhook(row);
}

export async function removeWebhook(ctx: WebhookContext, id: string, caller: Caller) {
  await ownWebhook(ctx, id, caller);
  if (!(await deleteWebhook(ctx.pool, id))) throw notFound('Webhook');
}

export async function listDeliveries(
  ctx: WebhookContext,
  id: string,
  caller: Caller,
  q: { page: number; size: number },
) {
  await ownWebhook(ctx, id, caller);
  const { rows, total } = await deliveriesPage(ctx.pool, id, q.page, q.size);
  return presentPage(rows.map(presentDelivery), total, q.page, q.size);
}

/**
 * Sends a finished delivery again, as a new round retried like the first (the same body, signed
 * anew). 409 while it is pending: its current round is still running.
 */
export async function redeliver(ctx: WebhookContext, id: string, deliveryId: string, caller: Caller) {
  await ownWebhook(ctx, id, caller);
  const row = await reopenDelivery(ctx.pool, id, deliveryId, ctx.settings.retryWindowMs);
  if (row === null) throw notFound('Delivery');
  if (row === 'pending') throw refusal('DELIVERY_PENDING', 'The delivery is still pending; wait for it to finish');
  // Should Redis be away, the stale-delivery sweep queues the round later.
  await ctx.queue.enqueue([{ deliveryId: row.id, round: row.round }]).catch(() => undefined);
  return presentDelivery(row);
}
