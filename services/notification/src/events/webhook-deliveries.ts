import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type Logger, type StreamPosition, startConsumer } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import { insertDeliveries, stalePending } from '../db/webhook-deliveries.js';
import { deleteWebhooksOfWorkspace, enabledWebhooksOf } from '../db/webhooks.js';
import { webhookWants } from '../domain/webhook-events.js';
import { documentOf, type WebhookEvent, webhookBody, workspaceOf } from '../domain/webhook-payload.js';
import type { WebhookSettings } from '../settings.js';
import type { DeliveryJob, WebhookQueue } from '../webhooks/queue.js';

/** The durable consumer that makes deliveries; the worker waits for its ack floor (worker.ts). */
export const WEBHOOKS_CONSUMER = 'notification-webhooks';

/** Every group of events a webhook can hear (webhook-events.ts); `user.*` belongs to no workspace. */
const TYPES = ['workspace.*', 'member.*', 'invitation.*', 'document.*', 'comment.*', 'attachment.*'] as const;

/** Jobs a transaction made, queued once it has committed (a job must find its row). */
const jobsOf = new WeakMap<DatabaseTransactionConnection, DeliveryJob[]>();

/** The pool whose transactions queue the jobs they made after the commit; a failed add is left to the sweep. */
function queueAfterCommit(pool: DatabasePool, queue: WebhookQueue, logger: Logger): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler, retryLimit) => {
    const jobs: DeliveryJob[] = [];
    const result = await pool.transaction(async (tx) => {
      jobs.length = 0; // a retried transaction starts over
      jobsOf.set(tx, jobs);
      return handler(tx);
    }, retryLimit);
    await queue
      .enqueue(jobs)
      .catch((err) => logger.warn({ err, jobs: jobs.length }, 'webhook jobs not queued; the sweep will queue them'));
    return result;
  };
  return { ...pool, transaction };
}

/**
 * Makes one delivery per enabled webhook of the event's workspace whose filters take it, stamped
 * with the event's place in the stream (what the worker orders and waits by).
 */
export async function makeDeliveries(
  event: WebhookEvent,
  tx: DatabaseTransactionConnection,
  settings: Pick<WebhookSettings, 'retryWindowMs'>,
  position: StreamPosition | null,
): Promise<DeliveryJob[]> {
  if (event.type === 'workspace.deleted') {
    await deleteWebhooksOfWorkspace(tx, event.data.id);
    return [];
  }
  const workspaceId = workspaceOf(event);
  if (!workspaceId) return [];
  const hooks = (await enabledWebhooksOf(tx, workspaceId)).filter((h) => webhookWants(h.events, event.type));
  if (hooks.length === 0) return [];
  const body = webhookBody(event, workspaceId);
  const ids = await insertDeliveries(tx, {
    webhookIds: hooks.map((h) => h.id),
    eventId: event.id,
    eventType: event.type,
    occurredAt: event.occurredAt,
    documentId: documentOf(event),
    streamSeq: position?.streamSeq ?? null,
    body,
    retryWindowMs: settings.retryWindowMs,
  });
  return ids.map((deliveryId) => ({ deliveryId, round: 0 }));
}

export function startWebhookDeliveries(
  bus: EventBus,
  pool: DatabasePool,
  deps: { queue: WebhookQueue; settings: WebhookSettings; logger: Logger },
) {
  return startConsumer({
    bus,
    pool: queueAfterCommit(pool, deps.queue, deps.logger),
    name: WEBHOOKS_CONSUMER,
    types: TYPES,
    handle: async (event, tx, position) => {
      jobsOf.get(tx)?.push(...(await makeDeliveries(event, tx, deps.settings, position)));
    },
    logger: deps.logger,
  });
}

/** How long a pending delivery may go without an attempt before the sweep re-queues its job. */
const STALE_MS = 60_000;

/**
 * Re-queues pending deliveries that saw no attempt for a minute: a job lost between a commit and
 * its add (a crash, Redis away). Adding a job that still exists changes nothing (its id).
 */
export function startStaleDeliverySweep(pool: DatabasePool, queue: WebhookQueue, logger: Logger) {
  return startPeriodicJob(
    'webhook stale delivery sweep',
    async () => {
      const stale = await stalePending(pool, STALE_MS, 500);
      await queue.enqueue(stale.map((s) => ({ deliveryId: s.id, round: s.round })));
    },
    STALE_MS,
    logger,
  );
}
