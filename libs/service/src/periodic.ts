import type { Logger } from '@wiki/events';
import type { Stoppable } from './definition.js';

/**
 * A service's periodic job (sweeps, pruning): `work` runs once at start, then every `intervalMs`;
 * a tick that comes while the previous run is still going is skipped, a failed run is logged under
 * `name` and tried again at the next tick, and `stop` waits for a run in progress. The timer does
 * not keep the process alive.
 */
export function startPeriodicJob(
  name: string,
  work: () => Promise<void>,
  intervalMs: number,
  logger: Pick<Logger, 'warn'>,
): Promise<Stoppable> {
  let running: Promise<void> | null = null;
  const run = () => {
    if (running) return;
    running = work()
      .catch((err) => logger.warn({ err, job: name }, `${name} failed; trying again in ${intervalMs} ms`))
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return Promise.resolve({
    async stop() {
      clearInterval(timer);
      await running;
    },
  });
}
