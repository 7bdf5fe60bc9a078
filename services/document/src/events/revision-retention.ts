import { type DatabasePool, withAdvisoryLock } from '@wiki/db';
import type { Logger } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import { type RetentionCursor, retentionStep } from '../db/revision-retention.js';

/** How often the history is pruned. */
export const RETENTION_INTERVAL_MS = 60 * 60_000;
/** Rows past the keep period looked at per step, and steps per run: a run's work is bounded by both. */
const STEP_ROWS = 500;
const STEPS_PER_RUN = 20;
/** The advisory lock (in this service's database) that lets one replica at a time prune. */
export const RETENTION_LOCK = 'document.revision-retention';

export interface RetentionRun {
  scanned: number;
  deleted: number;
  /** Whether the walk reached the keep period (the next run starts from the oldest row again). */
  finished: boolean;
}

/**
 * A pruner of the history: each run goes on from where the previous one of this pruner stopped,
 * at most `steps` steps, and starts over from the oldest row once it reached the keep period.
 * Rows the rule keeps stay behind the cursor, so a long kept history does not starve the rows
 * after it. Null when another replica was pruning (it holds the lock).
 */
export function revisionPruner(
  pool: DatabasePool,
  keepDays: number,
  options: { stepRows?: number; steps?: number; now?: () => Date } = {},
) {
  const stepRows = options.stepRows ?? STEP_ROWS;
  const steps = options.steps ?? STEPS_PER_RUN;
  let cursor: RetentionCursor | null = null;
  return async function pruneRevisions(): Promise<RetentionRun | null> {
    const ran = await withAdvisoryLock(pool, RETENTION_LOCK, async () => {
      const run: RetentionRun = { scanned: 0, deleted: 0, finished: false };
      for (let i = 0; i < steps && !run.finished; i++) {
        const step = await retentionStep(pool, { keepDays, limit: stepRows, after: cursor, now: options.now?.() });
        run.scanned += step.scanned;
        run.deleted += step.deleted;
        cursor = step.next;
        run.finished = cursor === null;
      }
      return run;
    });
    return ran?.value ?? null;
  };
}

/** The periodic job: a run at start, then every `intervalMs`. */
export function startRevisionRetention(
  pool: DatabasePool,
  keepDays: number,
  logger: Logger,
  intervalMs = RETENTION_INTERVAL_MS,
) {
  const prune = revisionPruner(pool, keepDays);
  return startPeriodicJob(
    'revision retention',
    async () => {
      const run = await prune();
      if (run && run.deleted > 0) logger.info({ ...run }, 'pruned document history');
    },
    intervalMs,
    logger,
  );
}
