import type { Config } from '@wiki/config';
import type { DatabasePool, MigrationSet } from '@wiki/db';
import type { EventBus, Logger } from '@wiki/events';
import type { HealthCheck } from '@wiki/http';
import type { FastifyInstance } from 'fastify';

/** Anything the runner must stop: a consumer, a background job, a client. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** What a service's app is built from. */
export interface AppKit {
  config: Config;
  /**
   * The service's database pool: its transactions wake the outbox relay once they commit events
   * (libs/events `wakeRelayAfterCommit`). Undefined for a part without a database.
   */
  pool: DatabasePool;
  /** Wakes the outbox relay: for writers that bypass `pool` (e.g. prepared statements on pg). */
  wakeRelay(): void;
  /** Readiness checks the app registers with `registerHealth`: database and NATS. */
  checks: Record<string, HealthCheck>;
  logLevel?: string;
}

/** What consumers and background jobs start from: the app's kit, the built app and the bus. */
export interface RuntimeKit extends AppKit {
  app: FastifyInstance;
  bus: EventBus;
  logger: Logger;
}

/**
 * A service as the runner sees it. The runner owns the order: database (created and migrated),
 * app, NATS and its stream, outbox relay, consumers, jobs; and the reverse on the way down.
 */
export interface ServiceDefinition {
  /** Names the database (`config.databaseUrls[name]`), the port, the NATS connection and logs. */
  name: keyof Config['databaseUrls'];
  /** Its migration sets, applied in order after the outbox tables of libs/events. */
  migrations: MigrationSet[];
  /** Connections in the service's pool (default 10). */
  poolSize?: number;
  /**
   * Reads the service's own settings (its settings.ts) from `config.env`: runServiceMain calls it
   * first, so a bad value stops the process naming its variable before anything starts.
   */
  settings?(config: Config): unknown;
  buildApp(kit: AppKit): Promise<FastifyInstance>;
  /** Durable consumers: started one by one once the relay runs, stopped before it. */
  consumers?: Starter[];
  /** Background work (sweepers, schedulers): started last, stopped first. */
  jobs?: Starter[];
}

/** Starts one consumer or job (or a few that belong together); the runner stops what it returns. */
export type Starter = (kit: RuntimeKit) => Promise<Stoppable | readonly Stoppable[]>;

export function defineService(definition: ServiceDefinition): ServiceDefinition {
  return definition;
}
