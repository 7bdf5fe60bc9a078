import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import { loadConfig } from '@wiki/config';
import { freePort } from '@wiki/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  DEFAULT_URLS,
  describeStarted,
  ensureLocalServers,
  stopLocalServers,
} from '../../scripts/lib/local-servers.mjs';

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A data folder of its own; readable on the way down for the postgres user when run as root. */
function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wiki-local-servers-'));
  chmodSync(dir, 0o755);
  return dir;
}

async function freeDefaults() {
  const [pgPort, natsPort, redisPort] = await Promise.all([freePort(), freePort(), freePort()]);
  return {
    ports: [pgPort, natsPort, redisPort],
    urls: {
      PG_URL: `postgres://postgres@127.0.0.1:${pgPort}`,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    },
  };
}

/**
 * Issue 11, point 12: the module `npm start` and `npm test` use to bring up what is missing at
 * its default address. These runs use free ports as the "defaults" and a temporary data folder,
 * so the servers of this machine are never started, stopped or written to.
 */
describe('local servers for npm start / npm test', () => {
  const folders: string[] = [];

  afterAll(async () => {
    for (const dir of folders) {
      await stopLocalServers({ dataDir: dir }).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('has the defaults of libs/config', () => {
    const dir = dataFolder();
    folders.push(dir);
    const config = loadConfig({ DATA_DIR: dir });
    expect(DEFAULT_URLS).toEqual({ PG_URL: config.pgUrl, NATS_URL: config.natsUrl, REDIS_URL: config.redisUrl });
  });

  it('starts PostgreSQL, NATS with JetStream and Redis under the data folder, and stops them', async () => {
    const dir = dataFolder();
    folders.push(dir);
    const { ports, urls } = await freeDefaults();

    const { started, down } = await ensureLocalServers({ env: {}, defaults: urls, dataDir: dir, install: false });
    expect(down).toEqual([]);
    expect(started.map((s) => [s.name, s.url, s.dir])).toEqual([
      ['PostgreSQL', urls.PG_URL, join(dir, 'postgres')],
      ['NATS', urls.NATS_URL, join(dir, 'nats')],
      ['Redis', urls.REDIS_URL, join(dir, 'redis')],
    ]);
    expect(describeStarted(started).join('\n')).toContain('npm run stop:deps');

    // Each answers a real client of the platform's kind, as the services would use it.
    const client = new pg.Client({ connectionString: urls.PG_URL });
    await client.connect();
    try {
      expect((await client.query('select current_user as who')).rows).toEqual([{ who: 'postgres' }]);
    } finally {
      await client.end();
    }
    const nc = await natsConnect({ servers: urls.NATS_URL });
    try {
      const info = await (await jetstreamManager(nc)).getAccountInfo();
      expect(info.streams).toBe(0);
    } finally {
      await nc.close();
    }
    const redis = new Redis(urls.REDIS_URL, { lazyConnect: true });
    await redis.connect();
    try {
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }

    // Running again finds them up and starts nothing.
    expect(await ensureLocalServers({ env: {}, defaults: urls, dataDir: dir, install: false })).toEqual({
      started: [],
      down: [],
    });

    expect(await stopLocalServers({ dataDir: dir })).toHaveLength(3);
    expect(await Promise.all(ports.map(answers))).toEqual([false, false, false]);
  }, 60_000);

  it('never starts a server whose variable points elsewhere: it reports it', async () => {
    const dir = dataFolder();
    folders.push(dir);
    const { urls: defaults, ports: defaultPorts } = await freeDefaults();
    const { urls: elsewhere, ports: elsewherePorts } = await freeDefaults();

    const { started, down } = await ensureLocalServers({ env: elsewhere, defaults, dataDir: dir, install: false });

    expect(started).toEqual([]);
    expect(down).toHaveLength(3);
    for (const [index, variable] of ['PG_URL', 'NATS_URL', 'REDIS_URL'].entries()) {
      expect(down[index]).toContain(`(${variable})`);
      expect(down[index]).toContain(`unset ${variable}`);
    }
    expect(await Promise.all([...defaultPorts, ...elsewherePorts].map(answers))).toEqual(Array(6).fill(false));
    for (const folder of ['postgres', 'nats', 'redis']) expect(existsSync(join(dir, folder))).toBe(false);
  });

  it('leaves servers that already answer alone', async () => {
    const dir = dataFolder();
    folders.push(dir);
    // The machine's own servers (those the integration tests use), given as the variables.
    const config = loadConfig({ ...process.env, DATA_DIR: dir });
    const env = { PG_URL: config.pgUrl, NATS_URL: config.natsUrl, REDIS_URL: config.redisUrl };

    expect(await ensureLocalServers({ env, dataDir: dir, install: false })).toEqual({ started: [], down: [] });
    for (const folder of ['postgres', 'nats', 'redis']) expect(existsSync(join(dir, folder))).toBe(false);
  });
});
