import type { Config } from '@wiki/config';
import { createDatabasePool, sql, z } from '@wiki/db';
import { type EventBus, publishInTx } from '@wiki/events';
import { createApp, registerHealth } from '@wiki/http';
import { cleanupConfig, eventually, isolatedConfig } from '@wiki/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BaseRuntimeKit,
  defineService,
  type RuntimeKit,
  type ServiceDefinition,
  startService,
} from '../src/index.js';

const NO_IDP = { issuer: 'http://127.0.0.1:9/idp', jwksUrl: 'http://127.0.0.1:9/jwks', audience: 'wiki' };
const configs: Config[] = [];

afterEach(async () => {
  for (const config of configs.splice(0)) await cleanupConfig(config);
});

function testConfig(env: Record<string, string> = {}): Config {
  const config = isolatedConfig(NO_IDP, env);
  configs.push(config);
  return config;
}

/** Open connections to the service's database, seen from another connection. */
async function connectionsTo(config: Config): Promise<number> {
  const admin = await createDatabasePool(`${config.pgUrl}/postgres`);
  try {
    const database = new URL(config.databaseUrls.search).pathname.slice(1);
    return await admin.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${database}`,
    );
  } finally {
    await admin.end();
  }
}

/** Resolves when the slow route has begun answering a request. */
let slowStarted: () => void = () => {};
/** When the slow route's handler finished, seen by the server. */
let slowFinishedAt = 0;

/** A bare service: health routes and one slow route. */
function bareService(overrides: Partial<ServiceDefinition> = {}): ServiceDefinition {
  return defineService({
    name: 'search',
    migrations: [],
    async buildApp({ checks, logLevel }) {
      const app = await createApp({ service: 'runner-test', logLevel: logLevel ?? 'silent' });
      registerHealth(app, checks);
      app.get('/slow', async () => {
        slowStarted();
        await new Promise((resolve) => setTimeout(resolve, 400));
        slowFinishedAt = Date.now();
        return { done: true };
      });
      return app;
    },
    ...overrides,
  });
}

describe('service runner', () => {
  it('releases everything it opened when a start fails half way', async () => {
    const config = testConfig();
    let seen: RuntimeKit | undefined;
    let appClosed = false;
    let firstConsumerStopped = false;
    const definition = bareService({
      consumers: [
        async (kit) => {
          seen = kit;
          kit.app.addHook('onClose', async () => {
            appClosed = true;
          });
          return {
            async stop() {
              firstConsumerStopped = true;
            },
          };
        },
        async () => {
          throw new Error('second consumer cannot start');
        },
      ],
    });

    await expect(startService(definition, config)).rejects.toThrow('second consumer cannot start');

    expect(seen).toBeDefined();
    const bus = seen?.bus as EventBus;
    expect(firstConsumerStopped).toBe(true);
    expect(appClosed).toBe(true);
    await expect(bus.health()).rejects.toThrow();
    expect(bus.nc.isClosed()).toBe(true);
    // Pool, relay and migrations all gave their connections back.
    await eventually(async () => expect(await connectionsTo(config)).toBe(0), { timeoutMs: 5_000 });
  });

  it('releases the database when the app itself cannot be built', async () => {
    const config = testConfig();
    const definition = bareService({
      async buildApp() {
        throw new Error('no app today');
      },
    });
    await expect(startService(definition, config)).rejects.toThrow('no app today');
    await eventually(async () => expect(await connectionsTo(config)).toBe(0), { timeoutMs: 5_000 });
  });

  it('shuts down gracefully: readiness off first, in-flight requests finish, then everything closes', async () => {
    const config = testConfig({ SHUTDOWN_DELAY_MS: '300' });
    let consumerStoppedAt = 0;
    const definition = bareService({
      consumers: [
        async () => ({
          async stop() {
            consumerStoppedAt = Date.now();
          },
        }),
      ],
    });
    const running = await startService(definition, config);
    await running.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(running.app.server.address() as { port: number }).port}`;
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'UP', checks: { database: 'UP', nats: 'UP', accepting: 'UP' } });

    const slow = fetch(`${base}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const stopping = running.stop();

    // During the shutdown delay the part still serves, but says it is not ready.
    const draining = await fetch(`${base}/health/ready`);
    expect(draining.status).toBe(503);
    expect(((await draining.json()) as { checks: Record<string, string> }).checks.accepting).toBe('DOWN');

    await stopping;
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    // Consumers stop only after the in-flight request was served.
    expect(slowFinishedAt).toBeGreaterThan(0);
    expect(consumerStoppedAt).toBeGreaterThanOrEqual(slowFinishedAt);
    await eventually(async () => expect(await connectionsTo(config)).toBe(0), { timeoutMs: 5_000 });
  });

  it('wakes the relay when a transaction of the kit pool commits events', async () => {
    const config = testConfig();
    let kit: RuntimeKit | undefined;
    const running = await startService(
      bareService({
        consumers: [
          async (k) => {
            kit = k;
            return { stop: async () => {} };
          },
        ],
      }),
      config,
    );
    try {
      const k = kit as RuntimeKit;
      const subject = `${config.eventsPrefix}.runner.tested`;
      const received: string[] = [];
      const sub = k.bus.nc.subscribe(subject, {
        callback: (_err, msg) => {
          received.push(msg.json<{ id: string }>().id);
        },
      });
      const envelope = await k.pool.transaction((tx) =>
        publishInTx(tx, { type: 'runner.tested', actorId: null, workspaceId: null, data: {} }),
      );
      await eventually(() => expect(received).toEqual([envelope.id]), { timeoutMs: 5_000 });
      sub.unsubscribe();
    } finally {
      await running.stop();
    }
  });

  it('starts a service without a database: app, NATS and consumers only, ready on NATS alone, stopped in order', async () => {
    const config = testConfig({ SHUTDOWN_DELAY_MS: '200' });
    const order: string[] = [];
    let kit: BaseRuntimeKit | undefined;
    const definition = defineService({
      name: 'search',
      database: false,
      async buildApp({ checks, logLevel }) {
        const app = await createApp({ service: 'runner-test', logLevel: logLevel ?? 'silent' });
        registerHealth(app, checks);
        app.addHook('preClose', async () => {
          order.push('app drains');
        });
        return app;
      },
      consumers: [
        async (k) => {
          kit = k;
          const sub = k.bus.nc.subscribe(`${config.eventsPrefix}.runner.core`);
          return {
            async stop() {
              order.push(`subscription stops (NATS open: ${!k.bus.nc.isClosed()})`);
              sub.unsubscribe();
            },
          };
        },
      ],
    });
    const running = await startService(definition, config);
    await running.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(running.app.server.address() as { port: number }).port}`;
    const ready = await fetch(`${base}/health/ready`);
    expect(await ready.json()).toEqual({ status: 'UP', checks: { nats: 'UP', accepting: 'UP' } });
    expect(kit?.bus.nc.isClosed()).toBe(false);
    expect(kit && 'pool' in kit).toBe(false);

    const stopping = running.stop();
    // Readiness off first, while NATS and the consumers still run.
    const draining = await fetch(`${base}/health/ready`);
    expect(draining.status).toBe(503);
    expect(order).toEqual([]);
    await stopping;
    expect(order).toEqual(['app drains', 'subscription stops (NATS open: true)']);
    expect(kit?.bus.nc.isClosed()).toBe(true);
    // It owns no database: none was created.
    expect(await databaseExists(config)).toBe(false);
  });
});

async function databaseExists(config: Config): Promise<boolean> {
  const admin = await createDatabasePool(`${config.pgUrl}/postgres`);
  try {
    const name = new URL(config.databaseUrls.search).pathname.slice(1);
    return await admin.exists(sql.unsafe`SELECT 1 FROM pg_database WHERE datname = ${name}`);
  } finally {
    await admin.end();
  }
}
