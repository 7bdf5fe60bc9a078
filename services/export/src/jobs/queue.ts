import { Queue } from 'bullmq';
import { redisOptions } from '../queue/jobs.js';
import type { ExportSettings } from '../settings.js';

/** BullMQ's queue of long jobs (ARCHITECTURE 5.19), beside the single exports' `export` queue. */
export const JOBS_QUEUE = 'jobs';

/** What a queued job carries: the jobs row's id, which is also its BullMQ id. */
export interface QueuedJob {
  jobId: string;
  requestId?: string;
}

/**
 * The API's side: queues a job under its own id, so adding the same job twice queues it once
 * (BullMQ keeps one job per id); everything else about it is in the jobs table.
 */
export class JobQueue {
  private readonly queue: Queue<QueuedJob>;

  constructor(
    redisUrl: string,
    prefix: string,
    private readonly settings: Pick<ExportSettings, 'attempts' | 'backoffMs'>,
  ) {
    this.queue = new Queue(JOBS_QUEUE, { connection: redisOptions(redisUrl), prefix });
    this.queue.on('error', () => undefined);
  }

  ready(): Promise<unknown> {
    return this.queue.waitUntilReady();
  }

  /** Queues the job; throws when Redis does not take it within `timeoutMs` (its client would wait for ever). */
  async add(job: QueuedJob, timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the job queue did not answer')), timeoutMs);
    });
    const added = this.queue.add('run', job, {
      jobId: job.jobId,
      attempts: this.settings.attempts,
      backoff: { type: 'exponential', delay: this.settings.backoffMs },
      // The queue's record goes after a while: the jobs table keeps the outcome.
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 1000 },
    });
    added.catch(() => undefined);
    try {
      await Promise.race([added, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
