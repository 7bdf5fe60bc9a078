import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** A short random lowercase name for databases, streams and key prefixes of one test run. */
export function uniqueName(prefix = 'wt'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Retries `check` until it stops throwing: for effects that travel through events. */
export async function eventually<T>(
  check: () => Promise<T> | T,
  { timeoutMs = 15_000, intervalMs = 25 } = {},
): Promise<T> {
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

/** A TCP port free on loopback right now, for processes that need a fixed port (not port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
