import type { Config } from '@wiki/config';
import type { DatabasePool, MigrationSet } from '@wiki/db';
import type { EventBus, Logger } from '@wiki/events';
import type { HealthCheck } from '@wiki/http';
import type { FastifyInstance } from 'fastify';

/** Anything the runner must stop: a consumer, a background job, a client. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** What every service definition has. */
interface DefinitionBase {
  /** Names the database (`config.databaseUrls[name]`), the port, the NATS connection and logs. */
  name: keyof Config['databaseUrls'];
  /**
   * Reads the service's own settings (its settings.ts) from the configuration: runServiceMain
   * calls it first, so a bad value stops the process naming its variable before anything starts.
   */
  settings?(config: Config): unknown;
}

/** What the app of a service without a database (mcp, collab) is built from. */
export interface BaseAppKit {
  config: Config;
  /**
   * Readiness checks the app registers with `registerHealth`: database and NATS, or NATS alone for
   * a service without a database.
   */
  checks: Record<string, HealthCheck>;
  logLevel?: string;
}

/** What a service's app is built from. */
export interface AppKit extends BaseAppKit {
  /**
   * The service's database pool: its transactions wake the outbox relay once they commit events
   * (libs/events `wakeRelayAfterCommit`).
   */
  pool: DatabasePool;
  /** Wakes the outbox relay: for writers that bypass `pool` (e.g. prepared statements on pg). */
  wakeRelay(): void;
}

/** What consumers and background jobs start from, besides the app's kit: the built app and the bus. */
export interface RuntimeParts {
  app: FastifyInstance;
  /** The kit's NATS connection (`bus.nc` for core subjects); the stream is ensured only with a database. */
  bus: EventBus;
  logger: Logger;
}

export type RuntimeKit = AppKit & RuntimeParts;
export type BaseRuntimeKit = BaseAppKit & RuntimeParts;

/** Starts one consumer or job (or a few that belong together); the runner stops what it returns. */
export type Starter<Kit = RuntimeKit> = (kit: Kit) => Promise<Stoppable | readonly Stoppable[]>;

/**
 * A service as the runner sees it. The runner owns the order: database (created and migrated),
 * app, NATS and its stream, outbox relay, consumers, jobs; and the reverse on the way down.
 */
export interface ServiceDefinition extends DefinitionBase {
  /** Its migration sets, applied in order after the outbox tables of libs/events. */
  migrations: MigrationSet[];
  /** Connections in the service's pool (default 10). */
  poolSize?: number;
  buildApp(kit: AppKit): Promise<FastifyInstance>;
  /** Durable consumers: started one by one once the relay runs, stopped before it. */
  consumers?: Starter[];
  /** Background work (sweepers, schedulers): started last, stopped first. */
  jobs?: Starter[];
}

/**
 * A service that owns no database (ARCHITECTURE 1: mcp, collab): no pool, migrations, outbox or
 * relay, and its readiness checks NATS alone. The runner opens the app and the NATS connection;
 * its consumers are NATS core subscriptions on `bus.nc`.
 */
export interface DatabaselessServiceDefinition extends DefinitionBase {
  database: false;
  buildApp(kit: BaseAppKit): Promise<FastifyInstance>;
  /** Subscriptions: started once the app is built, before it listens; stopped after it drained. */
  consumers?: Starter<BaseRuntimeKit>[];
  jobs?: Starter<BaseRuntimeKit>[];
}

export type AnyServiceDefinition = ServiceDefinition | DatabaselessServiceDefinition;

export function defineService(definition: ServiceDefinition): ServiceDefinition;
export function defineService(definition: DatabaselessServiceDefinition): DatabaselessServiceDefinition;
export function defineService(definition: AnyServiceDefinition): AnyServiceDefinition {
  return definition;
}

export function ownsDatabase(definition: AnyServiceDefinition): definition is ServiceDefinition {
  return !('database' in definition && definition.database === false);
}
