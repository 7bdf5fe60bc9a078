import type { Config } from '@wiki/config';
import { sql } from '@wiki/db';
import { createEnvelope, type EventEnvelope, publishInTx, startConsumer } from '@wiki/events';
import { createApp, registerHealth } from '@wiki/http';
import { cleanupConfig, eventually, isolatedConfig } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineService, type RunningService, type RuntimeKit, startService } from '../src/index.js';

const NO_IDP = { issuer: 'http://127.0.0.1:9/idp', jwksUrl: 'http://127.0.0.1:9/jwks', audience: 'wiki' };
/** More than the relay's batch: on a relay that retries a refused row forever, these never all go out. */
const EVENTS_AFTER = 150;

let config: Config;
let running: RunningService;
let kit: RuntimeKit;
const consumed = new Set<string>();

beforeAll(async () => {
  config = isolatedConfig(NO_IDP);
  const definition = defineService({
    name: 'search',
    migrations: [],
    async buildApp({ checks, logLevel }) {
      const app = await createApp({ service: 'set-aside-test', logLevel: logLevel ?? 'silent' });
      registerHealth(app, checks);
      return app;
    },
    consumers: [
      async (k) => {
        kit = k;
        return startConsumer({
          bus: k.bus,
          pool: k.pool,
          name: 'search-set-aside-test',
          types: ['parked.*'],
          logger: k.logger,
          handle: async (event: EventEnvelope) => {
            consumed.add(event.id);
          },
        });
      },
    ],
  });
  running = await startService(definition, config);
});

afterAll(async () => {
  await running?.stop();
  if (config) await cleanupConfig(config);
});

describe('an outbox row NATS refuses for good, in a running service', () => {
  it('does not hold back the events after it, and is counted in the health details while the service stays ready', async () => {
    const maxPayload = kit.bus.nc.info?.max_payload ?? 1024 * 1024;
    // Written by hand, past publishInTx and its cap, as a writer with its own SQL could.
    const big = createEnvelope({ type: 'parked.big', data: { text: 'x'.repeat(maxPayload + 1024) } });
    await kit.pool.query(sql.unsafe`
      INSERT INTO event_outbox (id, type, envelope) VALUES (${big.id}, ${big.type}, ${JSON.stringify(big)}::jsonb)
    `);
    const after = await kit.pool.transaction(async (tx) => {
      const written: EventEnvelope[] = [];
      for (let i = 0; i < EVENTS_AFTER; i++) written.push(await publishInTx(tx, { type: 'parked.after', data: { i } }));
      return written;
    });

    await eventually(() => expect(after.filter((e) => consumed.has(e.id))).toHaveLength(EVENTS_AFTER));
    expect(consumed.has(big.id)).toBe(false);

    await running.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (running.app.server.address() as { port: number }).port;
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; details?: { outbox?: { setAside: number } } };
    expect(body.status).toBe('UP');
    expect(body.details?.outbox?.setAside).toBe(1);
  });
});
