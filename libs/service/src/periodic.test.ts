import { describe, expect, it, vi } from 'vitest';
import { startPeriodicJob } from './periodic.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startPeriodicJob', () => {
  it('runs at start and on every tick, never two runs at once, goes on after a failure, and stop waits for a run', async () => {
    const warnings: unknown[] = [];
    let runs = 0;
    let active = 0;
    let most = 0;
    let finished = 0;
    const job = await startPeriodicJob(
      'test job',
      async () => {
        runs++;
        active++;
        most = Math.max(most, active);
        try {
          if (runs === 2) throw new Error('second run fails');
          await sleep(25); // longer than the interval: ticks meanwhile are skipped
        } finally {
          active--;
          finished++;
        }
      },
      5,
      { warn: (obj: unknown) => warnings.push(obj) },
    );
    expect(runs).toBe(1); // at start, before the first tick
    // The failed second run does not end the job.
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(4), { timeout: 10_000, interval: 5 });
    await job.stop();
    const atStop = runs;
    expect(finished).toBe(runs); // stop waited for the run in progress
    expect(most).toBe(1); // ticks during a run were skipped
    expect(warnings).toEqual([expect.objectContaining({ job: 'test job' })]);
    await sleep(30);
    expect(runs).toBe(atStop); // nothing after stop
  });
});
