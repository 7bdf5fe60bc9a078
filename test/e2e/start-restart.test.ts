import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { cleanupConfig, isolatedConfig, type JwksServer, replicaPort, startJwks } from '@wiki/testing';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface LauncherMessage {
  type: string;
  part?: string;
  ready?: boolean;
  error?: string;
}

/**
 * The launcher's restart command (scripts/start.mjs over IPC, what `npm run restart:rolling`
 * drives): one replica is stopped gracefully and started again while requests go on through the
 * gateway, and none of them fails.
 */
describe('npm start: restarting one replica on request', () => {
  let jwks: JwksServer;
  let config: Config;
  let launcher: ChildProcess | undefined;
  let output = '';
  const messages: LauncherMessage[] = [];
  let gatewayUrl: string;

  const nextMessage = (match: (m: LauncherMessage) => boolean): Promise<LauncherMessage> =>
    new Promise((resolve, reject) => {
      const seen = messages.find(match);
      if (seen) return resolve(seen);
      const onMessage = (m: LauncherMessage) => {
        if (!match(m)) return;
        launcher?.off('message', onMessage);
        launcher?.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) =>
        reject(new Error(`the launcher exited (${code}):\n${output.slice(-3000)}`));
      launcher?.on('message', onMessage);
      launcher?.once('exit', onExit);
    });

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    const taken = new Set<number>();
    const gatewayPort = await replicaPort(taken);
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    launcher = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--json', '--only=workspace'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        PG_URL: config.pgUrl,
        NATS_URL: config.natsUrl,
        REDIS_URL: config.redisUrl,
        PORT: String(gatewayPort),
        WORKSPACE_PORT: String(await replicaPort(taken)),
        REPLICAS: '2',
        DB_PREFIX: config.dbPrefix,
        EVENTS_STREAM: config.eventsStream,
        EVENTS_PREFIX: config.eventsPrefix,
        DATA_DIR: config.dataDir,
        AUTH_PROVIDER: 'oidc',
        AUTH_ISSUER: jwks.issuer,
        AUTH_JWKS_URL: jwks.jwksUrl,
        AUTH_AUDIENCE: jwks.audience,
        INTERNAL_API_KEY: config.internalApiKey,
        INTERNAL_TOKEN_SECRET: config.internalTokenSecret,
        RATE_LIMIT_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    launcher.stdout?.on('data', collect);
    launcher.stderr?.on('data', collect);
    launcher.on('message', (m: LauncherMessage) => messages.push(m));
    await nextMessage((m) => m.type === 'up');
  }, 150_000);

  afterAll(async () => {
    if (launcher && launcher.exitCode === null) {
      // Closing the IPC channel stops the launcher and everything it started, as SIGTERM would.
      const exited = new Promise((resolve) => launcher?.once('exit', resolve));
      launcher.disconnect();
      await exited;
    }
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 60_000);

  it('restarts each replica in turn, each ready again before the answer, while every request succeeds', async () => {
    const token = await jwks.mint({ sub: 'idp|e2e-restart', email: 'restart@example.com', name: 'Restart' });
    const list = async () => {
      const res = await fetch(`${gatewayUrl}/api/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await list()).toBe(200); // the first request makes the account: once, before the load

    const statuses = new Map<number, number>();
    let loading = true;
    const loop = async () => {
      while (loading) {
        const status = await list().catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const loops = [loop(), loop(), loop(), loop()];
    try {
      for (const part of ['workspace', 'workspace-2']) {
        launcher?.send({ type: 'restart', part });
        const answer = await nextMessage((m) => m.type === 'restarted' && m.part === part);
        expect(answer).toEqual({ type: 'restarted', part, ready: true });
        const ready = await fetch(`${gatewayUrl}/actuator/health`);
        expect(ready.status).toBe(200);
      }
    } finally {
      loading = false;
      await Promise.all(loops);
    }
    expect(output).toMatch(/workspace: restarting/);
    expect(output).toMatch(/workspace-2: restarted and ready/);
    // Every request of the load succeeded: no refused connection, no 503, nothing cut off.
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(4);
  }, 120_000);

  it('answers an unknown part with an error and keeps running', async () => {
    launcher?.send({ type: 'restart', part: 'nope' });
    const answer = await nextMessage((m) => m.type === 'restarted' && m.part === 'nope');
    expect(answer.error).toMatch(/no service part named nope/);
    expect(launcher?.exitCode).toBe(null);
  });
});
