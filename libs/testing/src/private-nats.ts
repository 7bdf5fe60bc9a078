import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from './names.js';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/**
 * A nats-server with JetStream of one test file alone, on its own port and store folder, so the
 * test can kill it, or wipe its store, without disturbing anyone else's tests.
 */
export class PrivateNats {
  private process: ChildProcess | null = null;
  readonly storeDir = mkdtempSync(join(tmpdir(), 'events-nats-'));
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort());
    await nats.start();
    return nats;
  }

  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port and store folder. */
  async start() {
    this.process = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: 'ignore',
    });
    await eventually(async () => {
      if (!(await accepts(this.port))) throw new Error(`nats-server is not listening on ${this.port} yet`);
    });
  }

  /** SIGKILL: an outage, not a polite shutdown. */
  async kill() {
    const p = this.process;
    this.process = null;
    if (!p || p.exitCode !== null) return;
    await new Promise((resolve) => {
      p.once('exit', resolve);
      p.kill('SIGKILL');
    });
  }

  /** Empties the store of a stopped server: its streams and consumers are gone when it starts again. */
  wipeStore() {
    if (this.process) throw new Error('stop the server before wiping its store');
    rmSync(this.storeDir, { recursive: true, force: true });
    mkdirSync(this.storeDir);
  }

  async dispose() {
    await this.kill();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
