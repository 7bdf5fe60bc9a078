import type { Config } from '@wiki/config';
import { sql } from '@wiki/db';
import { type EventEnvelope, outboxBacklog, publishInTx, startConsumer } from '@wiki/events';
import { AppError, createApp, registerHealth, startMetricsListener } from '@wiki/http';
import {
  cleanupConfig,
  eventually,
  getRawPath,
  isolatedConfig,
  looksLikeMetrics,
  METRICS_PATH_SPELLINGS,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineService, type RunningService, type RuntimeKit, startService } from '../src/index.js';

const NO_IDP = { issuer: 'http://127.0.0.1:9/idp', jwksUrl: 'http://127.0.0.1:9/jwks', audience: 'wiki' };

let config: Config;
let running: RunningService;
let kit: RuntimeKit;
let base: string;
/** The metrics listener's base URL (METRICS_PORT=0: a free port). */
let metricsBase: string;
/** A 'metric.held' event's handler waits for this: the event stays unacknowledged until then. */
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  config = isolatedConfig(NO_IDP);
  const definition = defineService({
    name: 'search',
    migrations: [],
    async buildApp({ checks, logLevel }) {
      const app = await createApp({ service: 'metrics-test', logLevel: logLevel ?? 'silent' });
      registerHealth(app, checks);
      app.get<{ Params: { id: string } }>('/things/:id', async (request) => {
        if (request.params.id === 'missing') throw new AppError('NOT_FOUND', 'No such thing');
        return { id: request.params.id };
      });
      return app;
    },
    consumers: [
      async (k) => {
        kit = k;
        return startConsumer({
          bus: k.bus,
          pool: k.pool,
          name: 'search-metrics-test',
          types: ['metric.*'],
          logger: k.logger,
          maxDeliver: 2,
          backoffMs: () => 10,
          handle: async (event: EventEnvelope) => {
            if (event.type === 'metric.broken') throw new Error('always fails');
            if (event.type === 'metric.held') await held;
          },
        });
      },
    ],
  });
  running = await startService(definition, config);
  metricsBase = (await startMetricsListener(running.app, { host: '127.0.0.1', port: 0 })).url;
  await running.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(running.app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  release(); // a failed test must not leave the consumer's stop waiting for its handler
  await running?.stop();
  if (config) await cleanupConfig(config);
});

type Sample = { labels: Record<string, string>; value: number };

/** The samples of one metric in Prometheus text, with their labels. */
function samples(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    out.push({ labels, value: Number(match[3]) });
  }
  return out;
}

function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function scrape(): Promise<string> {
  const response = await fetch(`${metricsBase}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe('GET /metrics of a kit service', () => {
  it('counts requests by method, route pattern and status class, with a latency histogram', async () => {
    for (const id of ['a', 'b', 'c']) expect((await fetch(`${base}/things/${id}`)).status).toBe(200);
    expect((await fetch(`${base}/things/missing`)).status).toBe(404);
    expect((await fetch(`${base}/no/such/route/${Math.random()}`)).status).toBe(404);

    const text = await scrape();
    const route = { service: 'metrics-test', method: 'GET', route: '/things/:id' };
    expect(sampleValue(text, 'http_requests_total', { ...route, status_class: '2xx' })).toBe(3);
    expect(sampleValue(text, 'http_requests_total', { ...route, status_class: '4xx' })).toBe(1);
    // The raw URL never becomes a label value.
    expect(text).not.toContain('/things/a');
    expect(text).not.toContain('/no/such/route');
    expect(sampleValue(text, 'http_requests_total', { route: 'unmatched', status_class: '4xx' })).toBe(1);

    expect(sampleValue(text, 'http_request_duration_seconds_count', route)).toBe(4);
    expect(sampleValue(text, 'http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(4);
    expect(sampleValue(text, 'http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
  });

  it('answers well-formed Prometheus text: every line a comment or a sample, one TYPE per metric', async () => {
    const text = await scrape();
    const types = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], (types.get(type[1]) ?? 0) + 1);
      else if (!line.startsWith('# HELP '))
        expect(line).toMatch(/^[a-zA-Z_:][\w:]*(\{(\w+="(?:[^"\\]|\\.)*",?)*\})? \S+$/);
    }
    expect([...types.values()].every((n) => n === 1)).toBe(true);
    expect(types.get('http_requests_total')).toBe(1);
    expect(types.get('http_request_duration_seconds')).toBe(1);
  });

  it('has the process defaults and the database pool', async () => {
    const text = await scrape();
    expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples(text, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(sampleValue(text, 'db_pool_max_connections')).toBe(kit.pool.configuration.maximumPoolSize ?? 10);
    expect(sampleValue(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, 'db_pool_waiting_clients')).toBe(0);
  });

  it('reports the outbox backlog and the rows set aside', async () => {
    await kit.pool.transaction((tx) => publishInTx(tx, { type: 'metric.ok', data: {} }));
    const refused = crypto.randomUUID();
    await kit.pool.query(sql.unsafe`
      INSERT INTO event_outbox (id, type, envelope, failed_at, failure)
      VALUES (${refused}, 'metric.refused', '{}'::jsonb, now(), 'refused by NATS in this test')
    `);
    await eventually(async () => {
      const text = await scrape();
      expect(sampleValue(text, 'events_outbox_pending')).toBe(0);
      expect(sampleValue(text, 'events_outbox_oldest_pending_age_seconds')).toBe(0);
      expect(sampleValue(text, 'events_outbox_set_aside')).toBe(1);
    });
  });

  it('reads the backlog and the age of the oldest pending row from the outbox', async () => {
    // Inside a transaction the relay cannot see, so the rows stay pending while they are read.
    const backlog = await kit.pool
      .transaction(async (tx) => {
        await tx.query(sql.unsafe`
          INSERT INTO event_outbox (id, type, envelope, created_at) VALUES
            (${crypto.randomUUID()}, 'metric.old', '{}'::jsonb, now() - interval '90 seconds'),
            (${crypto.randomUUID()}, 'metric.new', '{}'::jsonb, now())
        `);
        const read = await outboxBacklog(tx);
        throw Object.assign(new Error('roll back'), { read });
      })
      .catch((error: { read?: Awaited<ReturnType<typeof outboxBacklog>> }) => error.read);
    expect(backlog?.pending).toBe(2);
    expect(backlog?.oldestAgeSeconds).toBeGreaterThanOrEqual(90);
    expect(backlog?.oldestAgeSeconds).toBeLessThan(3600);
  });

  it("counts the service's consumers' redeliveries and dead-letters", async () => {
    await kit.pool.transaction((tx) => publishInTx(tx, { type: 'metric.broken', data: {} }));
    await eventually(async () => {
      const text = await scrape();
      const consumer = { consumer: 'search-metrics-test' };
      // Fails on its first delivery, is delivered again (maxDeliver 2), fails again: dead-lettered.
      expect(sampleValue(text, 'events_consumer_redeliveries_total', consumer)).toBe(1);
      expect(sampleValue(text, 'events_consumer_dead_letters_total', consumer)).toBe(1);
    });
  });

  it("shows a consumer's lag: events in the stream it has not acknowledged yet", async () => {
    const consumer = { consumer: 'search-metrics-test' };
    await kit.pool.transaction((tx) => publishInTx(tx, { type: 'metric.held', data: {} }));
    await eventually(async () => expect(sampleValue(await scrape(), 'events_consumer_lag_messages', consumer)).toBe(1));
    release();
    await eventually(async () => expect(sampleValue(await scrape(), 'events_consumer_lag_messages', consumer)).toBe(0));
  });

  it("is never served on the service's API port, however it is spelt: 404 there", async () => {
    for (const path of METRICS_PATH_SPELLINGS) {
      const answer = await getRawPath(base, path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(looksLikeMetrics(answer.body)).toBe(false);
    }
    expect(looksLikeMetrics(await scrape())).toBe(true);
  });
});
