import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { cleanupConfig, freePort, isolatedConfig, type JwksServer, startJwks } from '@wiki/testing';

const root = fileURLToPath(new URL('../..', import.meta.url));

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output.slice(-3000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output.slice(-3000)}`));
    });
  });
}

/**
 * `npm start` as an operator runs it: real processes from the compiled dist/, configured only
 * through the environment (oidc mode, own ports, database prefix, stream and subject prefix).
 * Needs the build that `npm test` runs first.
 */
describe('npm start', () => {
  let jwks: JwksServer;
  let config: Config;
  let child: ChildProcess | undefined;
  let gateway: string;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    const [port, workspace, document, comment] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    gateway = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      PG_URL: config.pgUrl,
      NATS_URL: config.natsUrl,
      REDIS_URL: config.redisUrl,
      PORT: String(port),
      WORKSPACE_PORT: String(workspace),
      DOCUMENT_PORT: String(document),
      COMMENT_PORT: String(comment),
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
    };
    child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--json'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForOutput(child, /Wiki platform is up/, 90_000);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
    }
    await jwks?.close();
    if (config) await cleanupConfig(config);
  });

  it('serves the API through the gateway with tokens of the configured provider', async () => {
    const token = await jwks.mint({ sub: 'idp|e2e-ada', email: 'ada@example.com', name: 'Ada' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const health = await fetch(`${gateway}/actuator/health`);
    expect(await health.json()).toEqual({
      status: 'UP',
      services: { workspace: 'UP', document: 'UP', comment: 'UP' },
      redis: 'UP',
    });

    const workspaces = (await (await fetch(`${gateway}/api/v1/workspaces`, { headers: auth })).json()) as {
      data: unknown[];
    };
    expect(workspaces.data).toEqual([expect.objectContaining({ name: "Ada's workspace", isDefault: true })]);

    const created = await fetch(`${gateway}/api/v1/workspaces`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'E2E' }),
    });
    expect(created.status).toBe(201);
    const workspaceId = ((await created.json()) as { data: { id: string } }).data.id;
    const doc = await fetch(`${gateway}/api/v1/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ workspaceId, title: 'Hello' }),
    });
    expect(doc.status).toBe(201);

    const anonymous = await fetch(`${gateway}/api/v1/workspaces`);
    expect(anonymous.status).toBe(401);
  });

  it('stops every process on SIGINT', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${gateway}/health/live`)).rejects.toThrow();
  }, 30_000);
});
