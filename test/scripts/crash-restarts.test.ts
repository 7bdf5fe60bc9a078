import { CRASH_RESTART_POLICY, crashRecord } from '../../scripts/lib/crash-restarts.mjs';

/** When `npm start` restarts a crashed part, and when it gives up on it (issue 24, point 2). */
describe('crash restart policy', () => {
  const minute = 60_000;

  it('doubles the back-off from 0.5 s and gives up at the 5th exit within 2 minutes', () => {
    const record = crashRecord();
    const decisions = [0, 1_000, 3_000, 7_000, 15_000].map((t) => record.exited(t, 0));
    expect(decisions).toEqual([
      { giveUp: false, delayMs: 500, attempt: 1 },
      { giveUp: false, delayMs: 1_000, attempt: 2 },
      { giveUp: false, delayMs: 2_000, attempt: 3 },
      { giveUp: false, delayMs: 4_000, attempt: 4 },
      { giveUp: true, failures: 5 },
    ]);
  });

  it('caps the back-off at 30 s and forgets exits older than 2 minutes', () => {
    const record = crashRecord();
    const delays: number[] = [];
    // One exit every 40 s: never 5 within 2 minutes, however long it goes on.
    for (let i = 0; i < 10; i++) {
      const next = record.exited(i * 40_000, 1_000);
      if (next.giveUp) throw new Error(`gave up at exit ${i + 1}`);
      delays.push(next.delayMs);
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('starts from the first delay again once the part had been ready for a minute', () => {
    const record = crashRecord();
    record.exited(0, 0);
    record.exited(1_000, 0);
    expect(record.exited(2_000, minute - 1)).toMatchObject({ delayMs: 2_000, attempt: 3 });
    expect(record.exited(70_000, minute)).toEqual({ giveUp: false, delayMs: 500, attempt: 1 });
    expect(CRASH_RESTART_POLICY.stableAfterMs).toBe(minute);
  });
});
