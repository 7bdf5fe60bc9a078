import { randomBytes } from 'node:crypto';

/** A short random lowercase name for databases, streams and key prefixes of one test run. */
export function uniqueName(prefix = 'wt'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Retries `check` until it stops throwing: for effects that travel through events. */
export async function eventually<T>(check: () => Promise<T> | T, { timeoutMs = 10_000, intervalMs = 50 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
