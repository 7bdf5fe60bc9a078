export interface CrashRestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  stableAfterMs: number;
  giveUpAfter: number;
  giveUpWithinMs: number;
}
export type CrashDecision = { giveUp: true; failures: number } | { giveUp: false; delayMs: number; attempt: number };
export declare const CRASH_RESTART_POLICY: Readonly<CrashRestartPolicy>;
export declare function crashRecord(policy?: CrashRestartPolicy): {
  exited(now: number, readyMs: number): CrashDecision;
};
