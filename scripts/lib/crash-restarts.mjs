// When `npm start` restarts a part that exited without being asked (a crash, an OOM kill, kill -9)
// and when it stops trying. The launcher keeps one record per part; this file only decides.

/**
 * - the first restart waits `firstDelayMs`, each further one twice as long, up to `maxDelayMs`;
 * - a part that had been ready for `stableAfterMs` when it exited starts again from the first delay;
 * - the `giveUpAfter`-th unasked exit within `giveUpWithinMs` is not restarted: the part fails at
 *   once each time (a bad deploy, a port taken, a store it cannot use) and restarting hides it.
 */
export const CRASH_RESTART_POLICY = Object.freeze({
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
  giveUpAfter: 5,
  giveUpWithinMs: 120_000,
});

/**
 * A part's unasked exits. `exited(now, readyMs)` is called at each one (`readyMs`: how long that
 * process had been ready, 0 if it never was) and answers `{ giveUp: true, failures }` or
 * `{ giveUp: false, delayMs, attempt }` (attempt 1 is the first restart since it last ran stably).
 */
export function crashRecord(policy = CRASH_RESTART_POLICY) {
  let exits = [];
  let attempt = 0;
  return {
    exited(now, readyMs) {
      if (readyMs >= policy.stableAfterMs) attempt = 0;
      exits = exits.filter((time) => now - time < policy.giveUpWithinMs);
      exits.push(now);
      if (exits.length >= policy.giveUpAfter) return { giveUp: true, failures: exits.length };
      attempt += 1;
      const delayMs = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
      return { giveUp: false, delayMs, attempt };
    },
  };
}
