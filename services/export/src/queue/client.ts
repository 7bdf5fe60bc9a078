import { randomUUID } from 'node:crypto';
import { type AppError, notFound, serviceUnavailable } from '@wiki/http';
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
 * The API's side of the queue: puts a job on it, waits for a worker to finish it, and takes the
 * finished file out of Redis (the key is deleted as it is read).
 */
export class ExportClient {
  private readonly queue: Queue<ExportJobData, ExportJobResult>;
  private readonly events: QueueEvents;
  /** For the files and the health check; BullMQ keeps its own connections. */
  private readonly redis: Redis;

  constructor(private readonly options: ExportClientOptions) {
    const connection = redisOptions(options.redisUrl);
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
    this.queue = new Queue(QUEUE_NAME, { connection, prefix: options.prefix });
    this.events = new QueueEvents(QUEUE_NAME, { connection, prefix: options.prefix });
  }

  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
  }

  async ping(): Promise<string> {
    return this.redis.ping();
  }

  /** The file and the document's title; 404 when the document went away, 503 when no worker finished in time. */
  async run(data: ExportJobData): Promise<{ file: Buffer; title: string }> {
    const { settings } = this.options;
    const job = await this.queue.add('render', data, {
      jobId: randomUUID(),
      attempts: settings.attempts,
      backoff: { type: 'exponential', delay: settings.backoffMs },
      // The job's own record (ids and the file's key, never the file) goes after a while; the
      // file is deleted when read, or expires (worker.ts).
      removeOnComplete: { age: 300, count: 1000 },
      removeOnFail: { age: 3600, count: 1000 },
    });
    let result: ExportJobResult;
    try {
      result = await job.waitUntilFinished(this.events, settings.timeoutMs);
    } catch (error) {
      throw await this.failure(job, error as Error);
    }
    const file = await this.redis.getdelBuffer(result.key);
    if (!file) throw serviceUnavailable('The exported file was lost before it could be sent');
    return { file, title: result.title };
  }

  private async failure(job: Job<ExportJobData, ExportJobResult>, error: Error): Promise<AppError> {
    if (error.message.includes(DOCUMENT_GONE)) return notFound('Document');
    if (/timed out/.test(error.message)) {
      // Nobody waits for it any more: a job still queued is taken off (one being rendered finishes,
      // and its file expires unread).
      await job.remove().catch(() => undefined);
      return serviceUnavailable('The export did not finish in time; try again later');
    }
    return serviceUnavailable('The export failed; try again later');
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.events.close(), this.queue.close()]);
    this.redis.disconnect();
  }
}
