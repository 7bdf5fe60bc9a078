import { randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
import type { ServiceClient } from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import { type Job, Worker } from 'bullmq';
import { findJob, finishJob, type JobKind, type JobRow, saveProgress, startJob } from '../db/jobs.js';
import { DOCUMENT_GONE, redisOptions } from '../queue/jobs.js';
import type { WorkerLogger } from '../queue/worker.js';
import type { ExportSettings } from '../settings.js';
import { JOBS_QUEUE, type QueuedJob } from './queue.js';

/** What a kind's handler gets: the row, and how to say it started and how far it is. */
export interface JobRun {
  row: JobRow;
  /** This run's own id: a file it writes is its own, so a lost race deletes only its own file. */
  runId: string;
  requestId?: string;
  start(total: number): Promise<boolean>;
  progress(done: number): Promise<void>;
  /** Whether the job has its outcome already (written by another run of it), read afresh. */
  finished(): Promise<boolean>;
}

/** What a finished run answers: the job's result, and the file it stored if any. */
export interface JobOutcome {
  result: Record<string, unknown>;
  fileKey?: string;
}

/** Runs one kind of job; null when the job turned out finished already (a re-run). */
export type JobHandler = (run: JobRun) => Promise<JobOutcome | null>;

/** Progress is written at most this often (and at the end): a row update per document would cost more than it tells. */
export const PROGRESS_INTERVAL_MS = 500;

/** The message a failed job shows its owner: known causes in words, anything else without internals. */
function failureMessage(error: Error): string {
  if (error.message.includes(DOCUMENT_GONE)) return 'Document not found';
  // A handler's own words for its owner (an import's refusal, say), bounded like any stored text.
  if ((error as { shownToOwner?: unknown }).shownToOwner === true) return error.message.slice(0, 1000);
  return 'The job failed';
}

export interface JobRunnerOptions {
  config: Pick<Config, 'redisUrl'>;
  pool: DatabasePool;
  storage: ObjectStorage;
  settings: Pick<ExportSettings, 'concurrency' | 'lockMs' | 'stalledIntervalMs' | 'downloadTtlMs'>;
  prefix: string;
  logger: WorkerLogger;
  handlers: Partial<Record<JobKind, JobHandler>>;
  /**
   * What a kind's job leaves behind once its outcome is written (done, failed, or given up after
   * its worker died too often), never earlier: another run of the same job may still need it.
   */
  cleanUp?: Partial<Record<JobKind, (row: JobRow) => Promise<void>>>;
  peers?: ServiceClient;
}

/**
 * The worker of long jobs. Each run reads the job's row first: a job already done or failed is not
 * run again (a duplicate delivery, or a worker thought dead that comes back). The outcome is
 * written once (finishJob only moves a queued or running row), together with its job.finished
 * event; a run that lost that race deletes the file it made. A worker that dies mid-job loses its
 * lock after EXPORT_LOCK_MS and another worker's stalled-job check runs the job again from the start.
 */
export async function startJobRunner(options: JobRunnerOptions) {
  const { pool, storage, settings, logger } = options;

  async function run(job: Job<QueuedJob>): Promise<void> {
    const row = await findJob(pool, job.data.jobId);
    if (!row || row.status === 'done' || row.status === 'failed') return;
    const handler = options.handlers[row.kind];
    if (!handler) throw new Error(`no handler for ${row.kind} jobs`);
    let lastWrite = 0;
    let total = 0;
    const outcome = await handler({
      row,
      runId: randomUUID(),
      requestId: job.data.requestId,
      start: async (count) => {
        total = count;
        lastWrite = Date.now();
        return startJob(pool, row.id, count);
      },
      progress: async (done) => {
        if (done < total && Date.now() - lastWrite < PROGRESS_INTERVAL_MS) return;
        lastWrite = Date.now();
        await saveProgress(pool, row.id, done);
      },
      finished: async () => {
        const now = await findJob(pool, row.id);
        return !now || now.status === 'done' || now.status === 'failed';
      },
    });
    if (!outcome) return;
    const expiresAt = new Date(Date.now() + settings.downloadTtlMs);
    const result = outcome.fileKey ? { ...outcome.result, expiresAt: expiresAt.toISOString() } : outcome.result;
    const won = await finishJob(pool, row.id, { status: 'done', result, fileKey: outcome.fileKey, expiresAt });
    if (!won && outcome.fileKey) {
      // Another run wrote the job's result first: this run's file is nobody's.
      await storage.delete(outcome.fileKey);
      logger.info({ jobId: row.id }, 'a job finished twice; the later result was dropped');
    }
    await options.cleanUp?.[row.kind]?.(row);
  }

  const worker = new Worker<QueuedJob>(JOBS_QUEUE, run, {
    connection: redisOptions(options.config.redisUrl),
    prefix: options.prefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: 2,
  });
  worker.on('failed', (job, error) => {
    logger.warn({ jobId: job?.data.jobId, attempt: job?.attemptsMade, err: error }, 'a job run failed');
    if (!job) return;
    // Only once BullMQ gives up (attempts used, unrecoverable, stalled too often) is the job failed.
    void (async () => {
      if ((await job.getState()) !== 'failed') return;
      await finishJob(pool, job.data.jobId, { status: 'failed', error: failureMessage(error) });
      const row = await findJob(pool, job.data.jobId);
      if (row) await options.cleanUp?.[row.kind]?.(row);
    })().catch((err) => logger.error({ err, jobId: job.data.jobId }, 'a failed job could not be marked failed'));
  });
  worker.on('error', (error) => logger.error({ err: error }, 'the job worker hit an error'));
  await worker.waitUntilReady();
  return {
    worker,
    async stop() {
      await worker.close();
    },
  };
}
