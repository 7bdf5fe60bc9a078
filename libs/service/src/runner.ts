import type { Config } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
import { createDatabasePool, ensureDatabase, type MigrationSet, migrate } from '@wiki/db';
import {
  configureEventMaxBytes,
  connectEventBus,
  consumerCounts,
  countSetAside,
  type EventBus,
  eventsMigrations,
  type Logger,
  type OutboxRelay,
  outboxBacklog,
  startOutboxRelay,
  wakeRelayAfterCommit,
} from '@wiki/events';
import {
  addScrapeCounter,
  addScrapeGauge,
  degradedWhenDown,
  GracefulStop,
  type HealthCheck,
  HealthDetails,
  nameDependency,
} from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import {
  type AnyServiceDefinition,
  type AppKit,
  type BaseAppKit,
  type BaseRuntimeKit,
  type DatabaselessServiceDefinition,
  ownsDatabase,
  type RuntimeKit,
  type ServiceDefinition,
  type Starter,
  type Stoppable,
} from './definition.js';

const SET_ASIDE_WARNING = 'events NATS refused for good are set aside in event_outbox (failed_at, failure)';
const NATS_DOWN_WARNING =
  'NATS is unreachable: requests are served, events wait in the outbox and consumers pause until it is back';

export interface RunningService {
  app: FastifyInstance;
  /** Graceful: readiness off, HTTP drained, then jobs, consumers, relay, NATS and the pool. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logLevel?: string;
}

/** Every migration set a service applies, in order: the outbox tables first, then its own. */
export function migrationSetsOf(definition: Pick<ServiceDefinition, 'migrations'>): MigrationSet[] {
  return [eventsMigrations, ...definition.migrations];
}

/** Creates the service's database when missing and applies its migration sets (also `npm run migrate`). */
export async function prepareDatabase(
  definition: Pick<ServiceDefinition, 'name' | 'migrations'>,
  config: Config,
): Promise<{ created: boolean; applied: string[] }> {
  const url = config.databaseUrls[definition.name];
  const created = await ensureDatabase(url);
  const applied = await migrate(url, migrationSetsOf(definition));
  return { created, applied };
}

/**
 * Starts everything but the listener, in this order: database (created, migrated, pooled), app,
 * NATS and the stream, outbox relay, consumers, jobs (a service without a database: app, NATS,
 * consumers, jobs). Each part is registered for shutdown as soon as it is open, so a start that
 * fails half way releases exactly what it had opened, then throws.
 */
export async function startService(
  definition: AnyServiceDefinition,
  config: Config,
  opts: StartOptions = {},
): Promise<RunningService> {
  const parts = new GracefulStop(config.shutdownDelayMs);
  // A refused socket towards one of these is logged as an outage of that dependency (libs/http outage.ts).
  if (ownsDatabase(definition)) nameDependency(config.databaseUrls[definition.name], 'postgres');
  nameDependency(config.natsUrl, 'nats');
  nameDependency(config.redisUrl, 'redis');
  try {
    const app = ownsDatabase(definition)
      ? await startWithDatabase(definition, config, opts, parts)
      : await startWithoutDatabase(definition, config, opts, parts);
    return { app, stop: () => parts.stop() };
  } catch (error) {
    await parts.stop();
    throw error;
  }
}

async function startWithDatabase(
  definition: ServiceDefinition,
  config: Config,
  opts: StartOptions,
  parts: GracefulStop,
): Promise<FastifyInstance> {
  await prepareDatabase(definition, config);
  const pool = await createDatabasePool(config.databaseUrls[definition.name], {
    maximumPoolSize: definition.poolSize,
  });
  parts.add('database pool', () => pool.end());

  let relay: OutboxRelay | undefined;
  let bus: EventBus | undefined;
  const wakeRelay = () => relay?.kick();
  const checks: Record<string, HealthCheck> = {
    // The query that pings the database also counts the outbox rows NATS refused for good: a
    // warning for an operator (docs/ARCHITECTURE-NOTES.md), not an outage, so still UP.
    database: async () => {
      const setAside = await countSetAside(pool);
      return setAside > 0 ? new HealthDetails({ outbox: { setAside, warning: SET_ASIDE_WARNING } }) : undefined;
    },
    // The service serves reads and writes without NATS (events wait in the outbox): reported, not unready.
    nats: degradedWhenDown(
      () => (bus ? bus.health() : Promise.reject(new Error('not connected yet'))),
      NATS_DOWN_WARNING,
    ),
  };

  const writingPool = wakeRelayAfterCommit(pool, wakeRelay);
  const appKit: AppKit = { config, pool: writingPool, wakeRelay, checks, logLevel: opts.logLevel };
  const app = await definition.buildApp(appKit);
  parts.serving(app);
  const logger: Logger = app.log;
  addKitMetrics(app, pool, () => bus);

  const connected = await connectBus(definition.name, config, logger, parts);
  bus = connected;
  // The outbox refuses envelopes NATS could never take: the configured cap, lowered under this
  // server's max_payload (what it announced at connect).
  const maxPayload = connected.nc.info?.max_payload;
  const eventMaxBytes = configureEventMaxBytes(config.eventMaxBytes, maxPayload);
  logger.info({ eventMaxBytes, maxPayload }, 'event size cap');
  await connected.ensureStream();

  const startedRelay = startOutboxRelay({ pool, bus: connected, logger, service: definition.name });
  relay = startedRelay;
  parts.add('outbox relay', () => startedRelay.stop());

  const kit: RuntimeKit = { ...appKit, app, bus: connected, logger };
  await startEach('consumer', definition.consumers ?? [], kit, parts);
  addConsumerLag(app, connected);
  await startEach('background job', definition.jobs ?? [], kit, parts);
  return app;
}

async function startWithoutDatabase(
  definition: DatabaselessServiceDefinition,
  config: Config,
  opts: StartOptions,
  parts: GracefulStop,
): Promise<FastifyInstance> {
  let bus: EventBus | undefined;
  const checks: Record<string, HealthCheck> = {
    // NATS is what carries its work between replicas: without it the service is not ready.
    nats: async () => {
      if (!bus || bus.nc.isClosed()) throw new Error('NATS connection closed');
      await bus.nc.flush();
    },
  };
  const appKit: BaseAppKit = { config, checks, logLevel: opts.logLevel };
  const app = await definition.buildApp(appKit);
  parts.serving(app);
  const logger: Logger = app.log;
  bus = await connectBus(definition.name, config, logger, parts);
  const kit: BaseRuntimeKit = { ...appKit, app, bus, logger };
  await startEach('consumer', definition.consumers ?? [], kit, parts);
  await startEach('background job', definition.jobs ?? [], kit, parts);
  return app;
}

/** The service's one NATS connection (reconnecting forever), stopped after everything that uses it. */
async function connectBus(name: string, config: Config, logger: Logger, parts: GracefulStop): Promise<EventBus> {
  const bus = await connectEventBus({
    natsUrl: config.natsUrl,
    stream: config.eventsStream,
    prefix: config.eventsPrefix,
    name,
    logger,
  });
  parts.add('NATS connection', () => bus.close());
  return bus;
}

/**
 * What the kit owns, on the app's `/metrics`: the pool, the outbox backlog and the consumers'
 * redeliveries and dead-letters. All read on scrape; the request path pays nothing for them.
 */
function addKitMetrics(app: FastifyInstance, pool: DatabasePool, busOf: () => EventBus | undefined): void {
  addScrapeGauge(app, {
    name: 'db_pool_connections',
    help: 'Database pool connections by state (acquired: running a query; idle: open and free; pending: opening)',
    label: 'state',
    read: () => {
      const state = pool.state();
      return { acquired: state.acquiredConnections, idle: state.idleConnections, pending: state.pendingConnections };
    },
  });
  addScrapeGauge(app, {
    name: 'db_pool_waiting_clients',
    help: 'Queries waiting for a free pool connection (above 0 for long: the pool is too small or queries too slow)',
    read: () => pool.state().waitingClients,
  });
  addScrapeGauge(app, {
    name: 'db_pool_max_connections',
    help: 'The pool size the service was started with',
    read: () => pool.configuration.maximumPoolSize ?? 10,
  });

  // The two outbox gauges come from one query: a scrape collects its metrics together, so the
  // second gauge joins the query the first started.
  let inFlight: ReturnType<typeof outboxBacklog> | null = null;
  const backlog = () => {
    if (!inFlight) {
      inFlight = outboxBacklog(pool);
      inFlight.then(
        () => {
          inFlight = null;
        },
        () => {
          inFlight = null;
        },
      );
    }
    return inFlight;
  };
  addScrapeGauge(app, {
    name: 'events_outbox_pending',
    help: 'Outbox rows not yet published to NATS (set-aside rows excluded)',
    read: async () => (await backlog()).pending,
  });
  addScrapeGauge(app, {
    name: 'events_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox row not yet published (0 when none): how far the relay is behind',
    read: async () => (await backlog()).oldestAgeSeconds,
  });
  addScrapeGauge(app, {
    name: 'events_outbox_set_aside',
    help: 'Outbox rows NATS refused for good, kept for an operator (docs/ARCHITECTURE-NOTES.md)',
    read: () => countSetAside(pool),
  });

  const own = (pick: (c: { redeliveries: number; deadLetters: number }) => number) => () => {
    const bus = busOf();
    return bus ? Object.fromEntries([...consumerCounts(bus)].map(([name, counts]) => [name, pick(counts)])) : {};
  };
  addScrapeCounter(app, {
    name: 'events_consumer_redeliveries_total',
    help: 'Events delivered again to a consumer (after a failure, a missed ack deadline or a restart)',
    label: 'consumer',
    read: own((c) => c.redeliveries),
  });
  addScrapeCounter(app, {
    name: 'events_consumer_dead_letters_total',
    help: 'Events a consumer gave up on and dead-lettered (act on any: see docs/OPERATIONS.md)',
    label: 'consumer',
    read: own((c) => c.deadLetters),
  });
}

/** The service's own consumers: names are `<service>-<purpose>` (several services share a process in tests). */
/** Consumer lag from JetStream, one request per consumer, on scrape. */
function addConsumerLag(app: FastifyInstance, bus: EventBus): void {
  addScrapeGauge(app, {
    name: 'events_consumer_lag_messages',
    help: 'Events in the stream a consumer has not yet acknowledged (not yet delivered, or being handled)',
    label: 'consumer',
    read: async () => {
      const out: Record<string, number> = {};
      for (const name of consumerCounts(bus).keys()) {
        const info = await bus.jsm.consumers.info(bus.stream, name);
        out[name] = info.num_pending + info.num_ack_pending;
      }
      return out;
    },
  });
}

async function startEach<Kit>(kind: string, starters: readonly Starter<Kit>[], kit: Kit, parts: GracefulStop) {
  for (const start of starters) {
    const started = await start(kit);
    const list: readonly Stoppable[] = Array.isArray(started) ? started : [started as Stoppable];
    parts.add(kind, () => stopTogether(list));
  }
}

async function stopTogether(items: readonly Stoppable[]): Promise<void> {
  const results = await Promise.allSettled(items.map((item) => item.stop()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
