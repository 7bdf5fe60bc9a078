import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throw-away Redis or NATS server on a port of its own, for tests that take a dependency away
 * (the machine's shared servers stay untouched). `halt` kills it as a crash would, `resume` starts
 * it again on the same port (NATS with the same JetStream store), `stop` ends it for good.
 */
export interface PrivateServer {
  url: string;
  halt(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

function firstExisting(...paths: string[]): string {
  return paths.find((path) => existsSync(path)) ?? paths[paths.length - 1];
}

/** Resolves once something accepts connections on the port (or throws after `ms`). */
async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function privateServer(
  url: string,
  port: number,
  start: () => ChildProcess,
  dir: string,
): Promise<PrivateServer> {
  let child: ChildProcess | undefined = start();
  await waitForPort(port);
  const halt = async () => {
    if (!child) return;
    const gone = exited(child);
    child.kill('SIGKILL');
    await gone;
    child = undefined;
  };
  return {
    url,
    halt,
    async resume() {
      if (child) return;
      child = start();
      await waitForPort(port);
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** redis-server without persistence on 127.0.0.1:`port`. */
export function startPrivateRedis(port: number): Promise<PrivateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'private-redis-'));
  const binary = firstExisting('/usr/bin/redis-server', 'redis-server');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  return privateServer(`redis://127.0.0.1:${port}`, port, () => spawn(binary, args, { stdio: 'ignore' }), dir);
}

/** nats-server with JetStream (its store in a folder of its own) on 127.0.0.1:`port`. */
export function startPrivateNats(port: number): Promise<PrivateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'private-nats-'));
  const binary = firstExisting('/usr/sbin/nats-server', '/usr/bin/nats-server', 'nats-server');
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir];
  return privateServer(`nats://127.0.0.1:${port}`, port, () => spawn(binary, args, { stdio: 'ignore' }), dir);
}
