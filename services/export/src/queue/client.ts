import { randomUUID } from 'node:crypto';
import { AppError, notFound, serviceUnavailable } from '@wiki/http';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { ExportSettings } from '../settings.js';
import { DOCUMENT_GONE, type ExportJobData, type ExportJobResult, QUEUE_NAME, redisOptions } from './jobs.js';

export interface ExportClientOptions {
  redisUrl: string;
  prefix: string;
  settings: Pick<ExportSettings, 'timeoutMs' | 'attempts' | 'backoffMs'>;
}

/**
 * The API's side of the queue: puts a job on it and waits for a worker to finish it; the answer
 * names the finished file in storage (the route streams it from there), never the file itself.
 */
export class ExportClient {
  private readonly queue: Queue<ExportJobData, ExportJobResult>;
  private readonly events: QueueEvents;
  /** For the health check and the per-user slots; BullMQ keeps its own connections. */
  readonly redis: Redis;

  constructor(private readonly options: ExportClientOptions) {
    const connection = redisOptions(options.redisUrl);
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
    // Connection errors surface as failed commands (503) and in the readiness check; ioredis
    // would otherwise print each reconnection failure.
    this.redis.on('error', () => undefined);
    this.queue = new Queue(QUEUE_NAME, { connection, prefix: options.prefix });
    this.events = new QueueEvents(QUEUE_NAME, { connection, prefix: options.prefix });
    this.queue.on('error', () => undefined);
    this.events.on('error', () => undefined);
  }

  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady(), this.redis.ping()]);
  }

  /** Jobs on the queue by state, for the metrics scrape. */
  async jobCounts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
  }

  async ping(): Promise<string> {
    return this.redis.ping();
  }

  /**
   * Where the finished file is stored and the document's title; 404 when the document went away,
   * 503 when no worker finished in time.
   */
  async run(data: ExportJobData): Promise<ExportJobResult> {
    // BullMQ would wait for Redis until the deadline: while the connection to it is down, say so at once.
    if (this.redis.status !== 'ready') throw serviceUnavailable('The export queue is unavailable; try again later');
    const { settings } = this.options;
    const deadline = Date.now() + settings.timeoutMs;
    // BullMQ's commands wait for Redis as long as it takes: the request's own deadline bounds them.
    const job = await beforeDeadline(
      this.queue.add('render', data, {
        jobId: randomUUID(),
        attempts: settings.attempts,
        backoff: { type: 'exponential', delay: settings.backoffMs },
        // The job's own record (ids and the file's key, never the file) goes after a while; the
        // file is deleted once sent, or by the expiry sweep (files/expired-files.ts).
        removeOnComplete: { age: 300, count: 1000 },
        removeOnFail: { age: 3600, count: 1000 },
      }),
      deadline,
    );
    try {
      return await job.waitUntilFinished(this.events, Math.max(1, deadline - Date.now()));
    } catch (error) {
      throw await this.failure(job, error as Error);
    }
  }

  private async failure(job: Job<ExportJobData, ExportJobResult>, error: Error): Promise<AppError> {
    if (error.message.includes(DOCUMENT_GONE)) return notFound('Document');
    if (/timed out/.test(error.message)) {
      // Nobody waits for it any more: a job still queued is taken off (one being rendered finishes,
      // and the expiry sweep removes its file).
      await beforeDeadline(job.remove(), Date.now() + 2_000).catch(() => undefined);
      return serviceUnavailable('The export did not finish in time; try again later');
    }
    return serviceUnavailable('The export failed; try again later');
  }

  async close(): Promise<void> {
    // Closing waits for Redis (BullMQ sends QUIT); without Redis it would wait for ever, so after
    // a while the connections are dropped instead.
    const closed = Promise.allSettled([this.events.close(), this.queue.close()]).then(() => true);
    const done = await Promise.race([
      closed,
      new Promise<false>((resolve) => setTimeout(resolve, 3_000, false).unref()),
    ]);
    this.redis.disconnect();
    if (!done) {
      void this.events.disconnect().catch(() => undefined);
      void this.queue.disconnect().catch(() => undefined);
    }
  }
}

/** The promise's value, or a 503 once the deadline passes (Redis unreachable: its client retries without end). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(serviceUnavailable('The export queue is unavailable; try again later')),
      Math.max(0, deadline - Date.now()),
    );
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw serviceUnavailable('The export queue is unavailable; try again later');
  } finally {
    clearTimeout(timer);
  }
}
