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

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port that is free, and free 100 above too (where `npm start` puts a second replica),
 * and so are both of their metrics ports 1000 above; `taken` keeps one caller's picks apart. All
 * four lie below Linux's ephemeral range (32768 and up), where an outgoing connection of any
 * process could take one between this check and the part's listen.
 */
export async function replicaPort(taken = new Set<number>()): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 11_000);
    const wanted = [port, port + 100, port + 1000, port + 1100];
    if (wanted.some((p) => taken.has(p))) continue;
    if (await everyListenable(wanted)) {
      for (const p of wanted) taken.add(p);
      return port;
    }
  }
}

async function everyListenable(ports: number[]): Promise<boolean> {
  for (const port of ports) if (!(await listenable(port))) return false;
  return true;
}
