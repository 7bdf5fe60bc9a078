import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { type Stoppable, startPeriodicJob } from '@wiki/service';
import { Queue, Worker } from 'bullmq';
import { claimForQueue } from '../db/mail.js';
import type { MailSettings } from '../settings.js';
import { type DeliverDeps, deliverMail } from './deliver.js';
import { MAIL_CONCURRENCY } from './transport.js';

export const MAIL_QUEUE = 'mail';
/** How often each replica looks for messages nobody queued (a kick after each commit does it at once otherwise). */
export const RELAY_INTERVAL_MS = 5_000;
/** An unsent message queued this long ago is queued again: the queue lost its job, or gave up on it. */
export const REQUEUE_AFTER_MS = 15 * 60_000;
const BATCH = 100;
const REDIS_TIMEOUT_MS = 5_000;

interface MailJob {
  mailId: string;
}

/** BullMQ refuses `:` in a job id; the outbox key (what is sent) is otherwise the id as it is. */
export const jobIdOf = (key: string) => key.replace(/:/g, '-');

/** BullMQ's connection: its blocking reads wait for jobs, so commands never give up (STACK.md). */
const connectionOf = (redisUrl: string) => ({ url: redisUrl, maxRetriesPerRequest: null });

/**
 * Moves the outbox's messages onto the queue: a row is stamped queued in the same transaction
 * that adds its job, so a Redis that is away leaves it for the next round. The job id is the
 * outbox key: adding the same message twice makes one job.
 */
export class MailRelay {
  private readonly queue: Queue<MailJob>;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly pool: DatabasePool,
    redisUrl: string,
    private readonly settings: Pick<MailSettings, 'attempts' | 'backoffMs' | 'queuePrefix'>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.queue = new Queue<MailJob>(MAIL_QUEUE, { connection: connectionOf(redisUrl), prefix: settings.queuePrefix });
    this.queue.on('error', () => undefined); // a Redis outage shows as failed rounds, logged once each
  }

  /** Runs a round now, or right after the one in progress. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.relay()
      .catch((err) => this.logger.warn({ err }, 'the mail relay failed; trying again at its next round'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Queues every message waiting, a batch per transaction. */
  async relay(): Promise<void> {
    for (;;) {
      const moved = await this.pool.transaction(async (tx) => {
        const rows = await claimForQueue(tx, REQUEUE_AFTER_MS, BATCH);
        if (rows.length > 0) await withTimeout(this.add(rows), REDIS_TIMEOUT_MS);
        return rows.length;
      });
      if (moved < BATCH) return;
    }
  }

  private add(rows: readonly { id: string; key: string }[]) {
    return this.queue.addBulk(
      rows.map((row) => ({
        name: 'send',
        data: { mailId: row.id },
        opts: {
          jobId: jobIdOf(row.key),
          attempts: this.settings.attempts,
          backoff: { type: 'exponential', delay: this.settings.backoffMs },
          // The outbox remembers what was sent; the queue keeps a job's record for a while to look at.
          removeOnComplete: { age: 3600, count: 1000 },
          removeOnFail: { age: 3600, count: 1000 },
        },
      })),
    );
  }

  /** The periodic round (each replica): what no kick reached, and what the queue lost. */
  start(): Promise<Stoppable> {
    return startPeriodicJob('mail relay', () => this.relay(), RELAY_INTERVAL_MS, this.logger);
  }

  async close(): Promise<void> {
    await this.running;
    await closeWithin(this.queue, 3_000);
  }
}

/** The worker of every replica: one job at a time per message, several messages at once. */
export async function startMailWorker(
  deps: DeliverDeps,
  redisUrl: string,
  settings: Pick<MailSettings, 'queuePrefix'>,
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
): Promise<Stoppable> {
  const worker = new Worker<MailJob>(MAIL_QUEUE, async (job) => deliverMail(deps, job.data.mailId), {
    connection: connectionOf(redisUrl),
    prefix: settings.queuePrefix,
    concurrency: MAIL_CONCURRENCY,
  });
  worker.on('completed', (job, result) => logger.info({ jobId: job.id, result }, 'e-mail job done'));
  // The message only: an SMTP error object may carry the server's dialogue.
  worker.on('failed', (job, err) =>
    logger.warn({ jobId: job?.id, attempt: job?.attemptsMade, error: err.message }, 'an e-mail job failed'),
  );
  worker.on('error', (err) => logger.error({ error: err.message }, 'the mail worker hit an error'));
  await worker.waitUntilReady();
  return {
    async stop() {
      await closeWithin(worker, 5_000);
    },
  };
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the mail queue did not answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closing waits for Redis; without it, the connections are dropped after a while instead. */
async function closeWithin(target: Queue | Worker, ms: number): Promise<void> {
  const closed = await Promise.race([
    target.close().then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, ms, false).unref()),
  ]).catch(() => false);
  if (!closed) await target.disconnect().catch(() => undefined);
}
