import type { DatabasePool } from '@wiki/db';
import { ACK_FLOOR_MAX_AGE_MS, type AckFloor, type Logger } from '@wiki/events';
import { DelayedError, type Job, Worker } from 'bullmq';
import { type AttemptRow, attemptOf, recordAttempt, waitsForOlder } from '../db/webhook-deliveries.js';
import { markWebhookHealthy, noteWebhookFailure } from '../db/webhooks.js';
import { retryDelayMs } from '../domain/webhook-retry.js';
import { signatureHeader } from '../domain/webhook-signature.js';
import type { WebhookSettings } from '../settings.js';
import { checkTarget, type Resolve, TargetRefusedError } from './address-guard.js';
import { noticeWebhookDisabled } from './disabled-notice.js';
import { postToTarget } from './post.js';
import { BACKOFF_TYPE, type DeliveryJob, redisConnection, WEBHOOK_QUEUE } from './queue.js';

export const USER_AGENT = 'Wiki-Webhooks/1.0';
/** Deliveries one worker sends at once. */
const CONCURRENCY = 8;
/**
 * A new delivery below the ack floor looks again this soon (its own event's ack is usually all it
 * waits for); one queued longer ago than FLOOR_PATIENCE_MS waits as long as for an older delivery.
 */
const FLOOR_WAIT_MS = ACK_FLOOR_MAX_AGE_MS;
const FLOOR_PATIENCE_MS = 5_000;

export interface WebhookWorkerOptions {
  pool: DatabasePool;
  redisUrl: string;
  prefix: string;
  settings: WebhookSettings;
  logger: Logger;
  /** Tells open streams of new notifications (a webhook disabled). */
  notify: (userIds: Iterable<string>) => void;
  /** The webhooks consumer's ack floor (WEBHOOKS_CONSUMER): a delivery waits until it has passed. */
  ackFloor: Pick<AckFloor, 'passed'>;
  resolve?: Resolve;
}

/** A failed attempt that will be tried again (BullMQ's back-off, from the worker's strategy). */
class RetryLater extends Error {
  override name = 'RetryLater';
}

/**
 * Sends deliveries: each job is one delivery's round. The delivery's row decides everything (the
 * job holds only its id), so a deleted webhook's jobs, whose rows went with it, do nothing.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions) {
  const { pool, settings, logger } = options;
  // While an older delivery about the same document is pending, a newer one looks again this often.
  const orderWaitMs = Math.min(settings.retryBaseMs, 5_000);

  async function attempt(d: AttemptRow): Promise<{ status: number | null; durationMs: number | null }> {
    let target: Awaited<ReturnType<typeof checkTarget>>;
    try {
      // Checked again at every attempt: the name may point elsewhere now.
      target = await checkTarget(d.url, settings.allowedHosts, options.resolve);
    } catch (error) {
      if (!(error instanceof TargetRefusedError)) throw error;
      logger.warn({ webhookId: d.webhookId, deliveryId: d.id, reason: error.message }, 'webhook target refused');
      return { status: null, durationMs: null };
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'wiki-event': d.eventType,
      'wiki-delivery': d.id,
      'wiki-signature': signatureHeader(d.secret, d.body, Math.floor(Date.now() / 1000)),
    };
    return postToTarget(target, headers, d.body);
  }

  async function deliver(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const { deliveryId, round } = job.data;
    const d = await attemptOf(pool, deliveryId);
    const seenAt = performance.now(); // its event was in the stream by now
    if (!d || d.round !== round || d.status !== 'pending') return; // webhook deleted, or done already
    const finish = (status: 'delivered' | 'failed', o: { status: number | null; durationMs: number | null } | null) =>
      recordAttempt(pool, d.id, round, {
        status,
        responseStatus: o?.status ?? null,
        durationMs: o?.durationMs ?? null,
        attempted: o !== null,
      });
    if (!d.enabled) {
      await finish('failed', null);
      return;
    }
    const later = async (ms: number) => {
      await job.moveToDelayed(Date.now() + ms, token);
      return new DelayedError(); // spends no attempt
    };
    if (d.documentId !== null) {
      // Replicas make deliveries in parallel: until the floor passes this event, an older event's
      // delivery about the document may not exist yet.
      if (d.streamSeq !== null && !(await options.ackFloor.passed(d.streamSeq, seenAt))) {
        throw await later(Date.now() - job.timestamp < FLOOR_PATIENCE_MS ? FLOOR_WAIT_MS : orderWaitMs);
      }
      // Asked only now: with the floor passed, every older delivery's row is there to be seen.
      if (await waitsForOlder(pool, d.id)) throw await later(orderWaitMs);
    }
    const outcome = await attempt(d);
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      await finish('delivered', outcome);
      await markWebhookHealthy(pool, d.webhookId);
      // Ids only (the URL may carry the receiver's token): which replica delivered what, like the mail worker's line.
      logger.info(
        { webhookId: d.webhookId, deliveryId: d.id, responseStatus: outcome.status, durationMs: outcome.durationMs },
        'webhook delivered',
      );
      return;
    }
    const disabled = await noteWebhookFailure(pool, d.webhookId, settings.disableAfterMs);
    if (disabled) {
      logger.warn({ webhookId: d.webhookId, workspaceId: d.workspaceId }, 'webhook disabled after failing too long');
      await noticeWebhookDisabled(pool, { id: d.webhookId, workspaceId: d.workspaceId }, options.notify);
    }
    const next = Date.now() + retryDelayMs(job.attemptsMade + 1, settings.retryBaseMs);
    if (disabled || next > Date.parse(d.retryUntil)) {
      await finish('failed', outcome);
      return;
    }
    await recordAttempt(pool, d.id, round, {
      status: 'pending',
      responseStatus: outcome.status,
      durationMs: outcome.durationMs,
      attempted: true,
    });
    throw new RetryLater(outcome.status === null ? 'no answer' : `answered ${outcome.status}`);
  }

  const worker = new Worker<DeliveryJob>(WEBHOOK_QUEUE, deliver, {
    connection: redisConnection(options.redisUrl),
    prefix: options.prefix,
    concurrency: CONCURRENCY,
    settings: {
      backoffStrategy: (attemptsMade, type) =>
        type === BACKOFF_TYPE ? retryDelayMs(Math.max(1, attemptsMade), settings.retryBaseMs) : 0,
    },
  });
  worker.on('error', (err) => logger.warn({ err }, 'webhook worker: queue error'));
  worker.on('failed', (job, err) => {
    if (!(err instanceof RetryLater) && !(err instanceof DelayedError)) {
      logger.error({ err, deliveryId: job?.data.deliveryId }, 'webhook delivery job failed');
    }
  });
  // Not awaited: with Redis away at start the worker connects when it can, and notifications go on.
  return {
    async stop() {
      const closed = worker.close().then(() => true);
      const done = await Promise.race([closed, new Promise<false>((r) => setTimeout(r, 12_000, false).unref())]);
      if (!done) void worker.disconnect().catch(() => undefined);
    },
  };
}
