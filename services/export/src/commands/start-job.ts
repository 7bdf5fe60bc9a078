import { randomUUID } from 'node:crypto';
import type { DatabasePool } from '@wiki/db';
import { sql, z } from '@wiki/db';
import { refusal, serviceUnavailable } from '@wiki/http';
import type { FastifyReply } from 'fastify';
import { insertJob, type NewJob } from '../db/jobs.js';
import type { JobQueue } from '../jobs/queue.js';

/** What a client over its share of running jobs is told to wait. */
const RETRY_AFTER_S = 5;

export interface StartJobDeps {
  pool: DatabasePool;
  queue: JobQueue;
  /** Unfinished jobs one user may have (EXPORT_CONCURRENT_PER_USER). */
  perUser: number;
}

/**
 * Records a job and queues it under its own id. A user with `perUser` jobs still queued or running
 * is refused (429 EXPORTS_BUSY). When the queue cannot take it, the row goes again and the answer
 * is 503: no job stays queued that nobody will run.
 */
export async function startJob(
  deps: StartJobDeps,
  job: Omit<NewJob, 'id'>,
  reply: FastifyReply,
  requestId?: string,
): Promise<string> {
  const running = await deps.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM jobs WHERE owner_id = ${job.ownerId} AND status IN ('queued', 'running')`);
  if (running >= deps.perUser) {
    reply.header('retry-after', RETRY_AFTER_S);
    throw refusal('EXPORTS_BUSY', 'Too many jobs running at once; try again when one has finished');
  }
  const id = randomUUID();
  await insertJob(deps.pool, { ...job, id });
  try {
    await deps.queue.add({ jobId: id, requestId });
  } catch {
    await deps.pool.query(sql.unsafe`DELETE FROM jobs WHERE id = ${id}`);
    throw serviceUnavailable('The job queue is unavailable; try again later');
  }
  return id;
}
