import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export { freePort } from '@wiki/testing';

/** One part of the system under test, running as its own Node process. */
export interface Part {
  name: string;
  child: ChildProcess;
  url: string;
  /** Resident set size now, in MiB (from /proc). */
  rssMiB(): number;
  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's command name and the CPU seconds of it (utime + stime) and of its ended children (cutime + cstime). */
function statOf(pid: number | string): { comm: string; own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces, hence the last ')'; utime is then the 12th field, cstime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    children: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

const cpuOf = (pid: number) => statOf(pid).own;

/**
 * CPU seconds used so far by every process whose command name is `comm` (e.g. all of Postgres),
 * counting the CPU of its ended children too: Postgres backends come and go, and a sum over live
 * processes alone would drop when one exits.
 */
export function cpuOfCommand(comm: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = statOf(entry);
      if (stat.comm === comm) total += stat.own + stat.children;
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

/** CPU seconds (user + system) this process has used so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Starts `node <script>` and waits until `readyPath` answers 200 (or the process dies). */
export async function startPart(
  name: string,
  script: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
  nodeArgs: string[] = [],
): Promise<Part> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    // BENCH_PART_LOGS=1 shows the parts' logs (e.g. with --log-level=info) when a row goes wrong.
    stdio: ['ignore', process.env.BENCH_PART_LOGS ? 'inherit' : 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${stderr}`);
    try {
      const res = await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become ready within 60 s:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    name,
    child,
    url,
    rssMiB: () => rssOf(child.pid!),
    cpuSeconds: () => cpuOf(child.pid!),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** A part of the one process: its name, its port, the module describing it (dist/part.js), its own variables. */
export interface OnePartSpec {
  name: string;
  port: number;
  module: string;
  set: Record<string, string>;
}

/** Every part in one Node process, and a view of that process per part (its URL, the whole process's RSS and CPU). */
export interface OneProcess {
  process: Part;
  views: Map<string, Part>;
}

/**
 * Starts the parts together in one Node process, as `npm start` does by default (its
 * scripts/one-process.mjs, with the parts in NPM_START_PARTS), and waits until every part answers
 * ready. RSS and CPU belong to the process, so a view's figures are the whole process's.
 */
export async function startOneProcess(
  script: string,
  env: Record<string, string>,
  specs: OnePartSpec[],
  nodeArgs: string[] = [],
): Promise<OneProcess> {
  const listed = specs.map(({ name, module, set }) => ({ name, module, set }));
  const [first, ...others] = specs;
  if (!first) throw new Error('no part to start');
  const whole = await startPart(
    'one process',
    script,
    { ...env, NPM_START_PARTS: JSON.stringify(listed) },
    first.port,
    '/health/ready',
    nodeArgs,
  );
  const deadline = Date.now() + 60_000;
  for (const spec of others) {
    const readyUrl = `http://127.0.0.1:${spec.port}/health/ready`;
    while (
      !(await fetch(readyUrl, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`${spec.name} in the one process did not become ready within 60 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const views = new Map(
    specs.map((spec): [string, Part] => [
      spec.name,
      { ...whole, name: spec.name, url: `http://127.0.0.1:${spec.port}` },
    ]),
  );
  return { process: whole, views };
}
