import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES } from '@wiki/config';
import {
  invitationEmailJoins,
  mentionEmailedOnce,
  notificationStreamsOnBothReplicas,
  oneNotificationPerMention,
  relayKeepsOrder,
  watchedEditsDebounced,
  webhooksThroughOutage,
} from './replica-behaviours.js';
import { launchReplicaPlatform, type ReplicaPlatform } from './replica-platform.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

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

  it.each([
    [['--processes=two'], {}, '--processes must be one or separate, got "two"'],
    [[], { PROCESSES: 'all' }, 'PROCESSES must be one or separate, got "all"'],
    [['--processes=one'], { REPLICAS: '2' }, 'several replicas run as separate processes'],
  ])('refuses %j %j (the process mode) before starting anything', (args, env, message) => {
    const run = spawnSync(process.execPath, ['scripts/start.mjs', '--no-build', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr + run.stdout).toContain(message);
  });
});

describe('npm start with REPLICAS=2', () => {
  let platform: ReplicaPlatform | undefined;

  beforeAll(async () => {
    platform = await launchReplicaPlatform();
  }, 150_000);

  // SIGTERM: the launcher stops all of its children before it exits.
  afterAll(() => platform?.stop(), 30_000);

  it('runs two ready processes of every service, and the gateway spreads requests over them', async () => {
    const { launch, ports, stack } = platform!;
    const gateway = launch.gatewayUrl;
    for (const service of SERVICE_NAMES) {
      for (const port of [ports[service], ports[service] + 100]) {
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
        expect({ service, port, status: ready.status }).toEqual({ service, port, status: 200 });
      }
    }
    const health = (await (await fetch(`${gateway}/actuator/health`)).json()) as { status: string };
    expect(health.status).toBe('UP');

    const token = await stack.jwks.mint({ sub: 'idp|e2e-replicas', email: 'rep@example.com', name: 'Rep' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // Each request is served by one replica, and both replicas serve some. The gateway learns that
    // a replica is ready from its own checks (every 2 s), so requests go on until both have served.
    const servedBy = (id: string) =>
      launch
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

  it('gives every replica its own metrics port (its port + 1000) and serves /metrics on no API port', async () => {
    const { launch, replicas, stack } = platform!;
    for (const service of SERVICE_NAMES) {
      for (const replica of replicas(service)) {
        const scraped = await fetch(`${replica.metricsUrl}/metrics`);
        expect({ replica: replica.name, status: scraped.status }).toEqual({ replica: replica.name, status: 200 });
        expect(await scraped.text()).toContain(`process_resident_memory_bytes{service="${service}"}`);
        const onApi = await fetch(`${replica.url}/metrics`);
        expect({ replica: replica.name, status: onApi.status }).toEqual({ replica: replica.name, status: 404 });
      }
    }
    // The gateway's on METRICS_PORT (loopback by default); its public port answers 404.
    const gatewayScrape = await fetch(`${stack.metricsUrls.gateway}/metrics`);
    expect(await gatewayScrape.text()).toContain('process_resident_memory_bytes{service="gateway"}');
    expect((await fetch(`${launch.gatewayUrl}/metrics`)).status).toBe(404);
  });

  // A subset of test/e2e/all-behaviours.replicas.ts (`npm run test:replicas` runs them all) on this launch.
  // Each waits on events crossing several processes of a busy machine: a minute, not the default 30 s.
  it('gives one notification per mention', () => oneNotificationPerMention(platform!), 60_000);
  it(
    'streams each notification once, whichever replica holds the stream',
    () => notificationStreamsOnBothReplicas(platform!),
    60_000,
  );
  it(
    'keeps the relay in order: the search index ends on the last of many renames',
    () => relayKeepsOrder(platform!),
    60_000,
  );
  // Issue 31's "Done when", at two replicas: e-mail, watching, webhooks (each waits on queues and timers too).
  it('e-mails an invitation whose link lets the invitee join', () => invitationEmailJoins(platform!), 60_000);
  it('e-mails a mention once, whichever replica sends', () => mentionEmailedOnce(platform!), 120_000);
  it(
    'gives a watcher one notification for edits inside the debounce window, one more after it',
    () => watchedEditsDebounced(platform!),
    90_000,
  );
  it(
    'delivers every webhook event once, signed and in order, through the receiver’s outage',
    () => webhooksThroughOutage(platform!),
    90_000,
  );
});
