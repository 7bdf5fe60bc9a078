import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivatePostgres {
  url: string;
  /** Stops the server and removes its files. */
  stop(): void;
  /**
   * Stops the server but keeps its files, as an outage would (`fast`: sessions are terminated
   * with 57P01; `immediate`: the server quits without a clean shutdown, as in a crash; `smart`:
   * new sessions are refused with 57P03 until the open ones end). Resolves once it is stopped, or
   * at once with `wait: false`.
   */
  halt(mode?: 'smart' | 'fast' | 'immediate', options?: { wait?: boolean }): Promise<void>;
  /** Starts a halted server again on the same port and files; resolves once it accepts connections. */
  resume(): Promise<void>;
}

/** Debian keeps the server binaries out of PATH, under /usr/lib/postgresql/<version>/bin. */
function bin(command: string): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const path = join(base, version, 'bin', command);
    if (existsSync(path)) return path;
  }
  return command;
}

/** As root, the server must run as the postgres user (it refuses root). */
function run(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const done = spawnSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${done.stderr || done.stdout}`);
}

/** `run`, without blocking the event loop: the services of a test keep running while it stops or starts. */
function runInBackground(command: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed: ${output}`)),
    );
  });
}

/**
 * A throw-away PostgreSQL server on `port` with room for `maxConnections` clients. The rolling
 * restart runs eighteen service processes whose pools together may hold more connections than a
 * default server's 100 (docs/OPERATIONS.md); a server of its own also keeps the run from taking
 * connections that other work on the machine needs.
 */
export function startPrivatePostgres(port: number, maxConnections: number): PrivatePostgres {
  const dir = mkdtempSync(join(tmpdir(), 'rolling-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('postgres:'));
    if (!entry) throw new Error('no postgres user to run a private PostgreSQL as');
    const [, , uid, gid] = entry.split(':');
    chownSync(dir, Number(uid), Number(gid));
  }
  run(bin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  appendFileSync(
    join(data, 'postgresql.conf'),
    `\nunix_socket_directories = ''\nmax_connections = ${maxConnections}\nlisten_addresses = '127.0.0.1'\nport = ${port}\n`,
  );
  const start = () => run(bin('pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
  start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    stop() {
      try {
        // Also after a halt: a `smart` one may still be waiting for sessions to end.
        run(bin('pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch (error) {
        if (running) throw error; // else it had stopped already
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async halt(mode = 'fast', { wait = true } = {}) {
      await runInBackground(bin('pg_ctl'), ['-D', data, '-m', mode, wait ? '-w' : '-W', 'stop']);
      running = false;
    },
    async resume() {
      await runInBackground(bin('pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
      running = true;
    },
  };
}
