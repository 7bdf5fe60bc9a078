import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { type JwksServer, replicaPort } from '@wiki/testing';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Launch {
  child: ChildProcess;
  /** Every port `npm start` was told to use: the gateway's first. */
  ports: number[];
  gatewayUrl: string;
  /** The gateway's metrics listener (METRICS_PORT, a free port: the services' are their port + 1000). */
  gatewayMetricsUrl: string;
  /** Everything the launcher printed so far (stdout and stderr). */
  output(): string;
}

export interface LaunchOptions {
  /** More arguments for the launcher (`--only=document`). */
  args?: string[];
  /** Give the launcher an IPC channel, as `npm run restart:rolling` does (closing it stops everything). */
  ipc?: boolean;
}

/**
 * Runs `node scripts/start.mjs --no-build --json` as an operator would (real processes from the
 * compiled dist/, configured only through the environment: oidc mode against `jwks`, free ports,
 * the database prefix, stream and subject prefix of `config`) and resolves once it says the
 * platform is up. Needs the build that `npm test` runs first.
 */
export async function launchPlatform(
  config: Config,
  jwks: JwksServer,
  extraEnv: Record<string, string> = {},
  { args = [], ipc = false }: LaunchOptions = {},
): Promise<Launch> {
  // Each part's metrics port is its own + 1000: replicaPort keeps both free, below the ephemeral range.
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < 4; i++) ports.push(await replicaPort(taken));
  const [gateway, workspace, document, comment] = ports.map(String);
  const gatewayMetrics = String(ports[0] + 1000);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PG_URL: config.pgUrl,
    NATS_URL: config.natsUrl,
    REDIS_URL: config.redisUrl,
    PORT: gateway,
    METRICS_PORT: gatewayMetrics,
    WORKSPACE_PORT: workspace,
    DOCUMENT_PORT: document,
    COMMENT_PORT: comment,
    DB_PREFIX: config.dbPrefix,
    EVENTS_STREAM: config.eventsStream,
    EVENTS_PREFIX: config.eventsPrefix,
    DATA_DIR: config.dataDir,
    AUTH_PROVIDER: 'oidc',
    AUTH_ISSUER: jwks.issuer,
    AUTH_JWKS_URL: jwks.jwksUrl,
    AUTH_AUDIENCE: jwks.audience,
    // The web app signs in as this client (GET /auth/config names it); the stand-in issuer's audience.
    AUTH_CLIENT_ID: jwks.audience,
    INTERNAL_API_KEY: config.internalApiKey,
    INTERNAL_TOKEN_SECRET: config.internalTokenSecret,
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--json', ...args], {
    cwd: root,
    env,
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // The launcher stops what it started; the failure is answered once it has exited, so that
      // the caller's clean-up finds no process still holding the test's databases.
      const error = new Error(`npm start was not up within 90 s:\n${output.slice(-3000)}`);
      child.off('exit', onExit);
      child.once('exit', () => settle(error));
      child.kill('SIGTERM');
    }, 90_000);
    const onData = () => {
      if (output.includes('Wiki platform is up')) settle();
    };
    const onExit = (code: number | null) => settle(new Error(`npm start exited with ${code}:\n${output.slice(-3000)}`));
    function settle(error?: Error) {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
  // The caller's ports win over the ones picked here.
  return {
    child,
    ports: [env.PORT, env.WORKSPACE_PORT, env.DOCUMENT_PORT, env.COMMENT_PORT].map(Number),
    gatewayUrl: `http://127.0.0.1:${env.PORT}`,
    gatewayMetricsUrl: `http://127.0.0.1:${env.METRICS_PORT}`,
    output: () => output,
  };
}

/** Resolves true when something accepts a TCP connection on the loopback port. */
export function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The pids listening on `port` (from `ss`): which process serves a part, and orphans to end by id after a failure. */
export function listeners(port: number): number[] {
  const out = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' }).stdout ?? '';
  return [...new Set([...out.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])))];
}

/** The pids of the processes whose parent is `pid` (the launcher's: one, or one per part). */
export function childrenOf(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  return out
    .split('\n')
    .filter((line) => line.trim())
    .map(Number);
}
