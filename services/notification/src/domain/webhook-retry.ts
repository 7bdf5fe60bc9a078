/**
 * How long to wait after failed attempt `attempt` (1-based): doubling from `baseMs`, at most
 * `capMs` (an hour by default, so that a receiver back within the retry window hears soon).
 */
export function retryDelayMs(attempt: number, baseMs: number, capMs = 3_600_000): number {
  return Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), capMs);
}
