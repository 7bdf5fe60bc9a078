import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { SERVICE_NAMES } from '@wiki/config';
import { cleanupConfig, isolatedConfig, type JwksServer, startJwks } from '@wiki/testing';
import { type Launch, launchPlatform } from './launch.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port that is free, and free 100 above too (where `npm start` puts a second replica). */
async function replicaPorts(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (taken.has(port) || taken.has(port + 100)) continue;
    if ((await listenable(port)) && (await listenable(port + 100))) {
      taken.add(port);
      taken.add(port + 100);
      return port;
    }
  }
}

/**
 * `npm start` with REPLICAS=2: two processes of every service on their own ports (the service's
 * and 100 above), and a gateway that sends requests to both. Which replica served a request is
 * read from the launcher's log lines, which carry the part's name (`workspace-2 | {...}`).
 */
describe('npm start replica count', () => {
  it.each([
    [['--replicas=0'], {}],
    [['--replicas=two'], {}],
    [[], { REPLICAS: '9' }],
  ])('refuses %j %j before starting anything', (args, env) => {
    const run = spawnSync(process.execPath, ['scripts/start.mjs', '--no-build', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr + run.stdout).toMatch(/(REPLICAS|--replicas) must be a whole number from 1 to 4/);
  });
});

describe('npm start with REPLICAS=2', () => {
  let jwks: JwksServer;
  let config: Config;
  let launch: Launch | undefined;
  const ports = {} as Record<(typeof SERVICE_NAMES)[number], number>;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    const taken = new Set<number>();
    const env: Record<string, string> = { REPLICAS: '2', LOG_LEVEL: 'info' };
    for (const service of SERVICE_NAMES) {
      ports[service] = await replicaPorts(taken);
      env[`${service.toUpperCase()}_PORT`] = String(ports[service]);
    }
    launch = await launchPlatform(config, jwks, env);
  }, 150_000);

  afterAll(async () => {
    if (launch && launch.child.exitCode === null) {
      // SIGTERM: the launcher stops all of its children before it exits.
      const exited = new Promise((resolve) => launch?.child.once('exit', resolve));
      launch.child.kill('SIGTERM');
      await exited;
    }
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 30_000);

  it('runs two ready processes of every service, and the gateway spreads requests over them', async () => {
    const gateway = launch!.gatewayUrl;
    for (const service of SERVICE_NAMES) {
      for (const port of [ports[service], ports[service] + 100]) {
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
        expect({ service, port, status: ready.status }).toEqual({ service, port, status: 200 });
      }
    }
    const health = (await (await fetch(`${gateway}/actuator/health`)).json()) as { status: string };
    expect(health.status).toBe('UP');

    const token = await jwks.mint({ sub: 'idp|e2e-replicas', email: 'rep@example.com', name: 'Rep' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // Each request is served by one replica, and both replicas serve some. The gateway learns that
    // a replica is ready from its own checks (every 2 s), so requests go on until both have served.
    const servedBy = (id: string) =>
      launch!
        .output()
        .split('\n')
        // The gateway's call to resolve the user carries the same id: only the proxied request counts.
        .filter((line) => line.includes(id) && line.includes('"url":"/api/v1/workspaces"'))
        .map((line) => line.split(' | ')[0].trim())
        .filter((name) => name === 'workspace' || name === 'workspace-2');
    const ids: string[] = [];
    await expect
      .poll(
        async () => {
          const id = `replicas-${ids.length}-${Date.now()}`;
          ids.push(id);
          const res = await fetch(`${gateway}/api/v1/workspaces`, { headers: { ...auth, 'x-request-id': id } });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          return [...new Set(ids.flatMap(servedBy))].sort();
        },
        { timeout: 20_000, interval: 250 },
      )
      .toEqual(['workspace', 'workspace-2']);
    await expect.poll(() => ids.every((id) => servedBy(id).length === 1)).toBe(true);

    // A write and its read go through whichever replica each lands on.
    const created = await fetch(`${gateway}/api/v1/workspaces`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Two replicas' }),
    });
    expect(created.status).toBe(201);
    const workspaceId = ((await created.json()) as { data: { id: string } }).data.id;
    for (let i = 0; i < 2; i++) {
      const read = await fetch(`${gateway}/api/v1/workspaces/${workspaceId}`, { headers: auth });
      expect(read.status).toBe(200);
      await read.arrayBuffer();
    }
  });
});
