import { Queue } from 'bullmq';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

/** What a job carries: the delivery and its round (a redeliver request starts a new round). */
export interface DeliveryJob {
  deliveryId: string;
  round: number;
}

/** Effectively unbounded: the worker stops retrying by the delivery's retry window, not by count. */
const ATTEMPTS = 100_000;
/** The back-off type the worker's strategy computes (webhook-retry.ts). */
export const BACKOFF_TYPE = 'webhook';

/** Connection options from REDIS_URL; BullMQ's blocking reads need commands that never give up. */
export const redisConnection = (url: string) => ({ url, maxRetriesPerRequest: null });

/** BullMQ's key prefix: `<DB_PREFIX>:bull`, like the export queue, so each test run has its own. */
export const queuePrefixOf = (dbPrefix: string) => `${dbPrefix}:bull`;

/** The producers' side: the consumer and the redeliver route put jobs on it. */
export class WebhookQueue {
  private readonly queue: Queue<DeliveryJob>;

  constructor(redisUrl: string, prefix: string) {
    this.queue = new Queue<DeliveryJob>(WEBHOOK_QUEUE, { connection: redisConnection(redisUrl), prefix });
    // Failures surface as failed adds (the sweep re-adds what was lost); no reconnect noise.
    this.queue.on('error', () => undefined);
  }

  /**
   * One job per delivery and round; the job id makes adding twice harmless (BullMQ keeps the job
   * it has), which is what lets the sweep re-add jobs a crash may have lost.
   */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: 'deliver',
        data,
        opts: {
          jobId: `${data.deliveryId}_r${data.round}`,
          attempts: ATTEMPTS,
          backoff: { type: BACKOFF_TYPE },
          removeOnComplete: true,
          removeOnFail: { age: 24 * 3600, count: 1000 },
        },
      })),
    );
  }

  async close(): Promise<void> {
    const closed = this.queue.close().then(() => true);
    const done = await Promise.race([closed, new Promise<false>((r) => setTimeout(r, 3_000, false).unref())]);
    if (!done) void this.queue.disconnect().catch(() => undefined);
  }
}
