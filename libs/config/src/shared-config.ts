import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config-error.js';
import { secret } from './dev-secrets.js';
import {
  type EnvVar,
  envVar,
  matching,
  oneOf,
  optionalWholeNumber,
  text,
  url,
  urlValue,
  wholeNumber,
} from './env-vars.js';
import { isProduction } from './node-env.js';
import { type Env, readEnv } from './read-env.js';
import { DEFAULT_SERVICE_PORTS, SERVICE_NAMES, type ServiceName } from './service-names.js';

/**
 * What every process reads: where it and its peers listen, its database, NATS, Redis and the
 * shared secrets. A part's own settings (search engine, upload limits, object storage, the
 * gateway's identity provider, ...) are read by the part itself from `env`, with the same parser
 * (readEnv), next to its code.
 */
export interface Config {
  /** The environment this configuration was read from: where a part reads its own settings. */
  env: Readonly<Env>;
  logLevel: string;
  /** Folder for local state: dev keys, dev secrets, local object storage. */
  dataDir: string;
  gatewayPort: number;
  gatewayUrl: string;
  ports: Record<ServiceName, number>;
  /** HOST: the address a part's API listens on (default every interface). */
  listenHost: string;
  /** Where `/metrics` is served, never on the API's port (ARCHITECTURE 5.14; `listenAddresses`). */
  metrics: {
    /** METRICS_PORT; unset: the part's own port + 1000. 0: any free port (tests). */
    port?: number;
    /** METRICS_HOST; unset: the API's host, except on the gateway (it faces the network): 127.0.0.1. */
    host?: string;
  };
  /** Where a service is reached; with several replicas, the first of `replicaUrls`. */
  urls: Record<ServiceName, string>;
  /**
   * Every replica of a service (`<SERVICE>_URL` may list several, comma-separated): the gateway
   * and the calls between services (libs/service-client PeerReplicas) spread over them.
   */
  replicaUrls: Record<ServiceName, string[]>;
  pgUrl: string;
  dbPrefix: string;
  databaseUrls: Record<ServiceName, string>;
  natsUrl: string;
  eventsStream: string;
  eventsPrefix: string;
  redisUrl: string;
  internalApiKey: string;
  internalTokenSecret: string;
  /**
   * The largest serialised event envelope a service writes to its outbox (EVENT_MAX_BYTES); the
   * service lowers it at connect when the NATS server's max_payload leaves less room.
   */
  eventMaxBytes: number;
  /**
   * On SIGTERM, how long a part keeps serving with its readiness already failing before it stops
   * accepting (SHUTDOWN_DELAY_MS): time for a load balancer to take it out of rotation.
   */
  shutdownDelayMs: number;
}

/** The repository root (libs/config/{src,dist}/*.* lives two levels below it). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The URL of another database on the same server as `serverUrl`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

const PORT = { min: 0, max: 65535 };
const HTTP = ['http:', 'https:'];
const POSTGRES = ['postgres:', 'postgresql:'];

/** `<SERVICE>_URL`: one URL or a comma-separated list of replicas, each checked. */
function replicaList(fallback: string): EnvVar<string[]> {
  return envVar((raw) => {
    const listed = (raw ?? fallback)
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    return (listed.length > 0 ? listed : [fallback]).map((item) => urlValue(item, HTTP));
  });
}

/** The variables named `<SERVICE><suffix>` of every service, each read by `reading(service)`. */
function perService<T>(suffix: string, reading: (service: ServiceName) => EnvVar<T>): Record<string, EnvVar<T>> {
  return Object.fromEntries(SERVICE_NAMES.map((service) => [`${service.toUpperCase()}${suffix}`, reading(service)]));
}

function byService<T>(values: Record<string, T>, suffix: string): Record<ServiceName, T> {
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, values[`${s.toUpperCase()}${suffix}`]])) as Record<
    ServiceName,
    T
  >;
}

function readAddresses(env: Env, host: string) {
  const ports = byService(
    readEnv(
      env,
      perService('_PORT', (s) => wholeNumber(DEFAULT_SERVICE_PORTS[s], PORT)),
    ),
    '_PORT',
  );
  const replicaUrls = byService(
    readEnv(
      env,
      perService('_URL', (s) => replicaList(`http://${host}:${ports[s]}`)),
    ),
    '_URL',
  );
  const urls = Object.fromEntries(SERVICE_NAMES.map((s) => [s, replicaUrls[s][0]])) as Record<ServiceName, string>;
  return { ports, urls, replicaUrls };
}

function readDatabases(env: Env) {
  const { PG_URL: pgUrl, DB_PREFIX: dbPrefix } = readEnv(env, {
    PG_URL: url(POSTGRES, 'postgres://postgres@127.0.0.1:5432'),
    DB_PREFIX: matching(/^[a-z][a-z0-9_]{0,39}$/, 'lowercase letters, digits and _ (max 40)', 'wiki'),
  });
  const explicit = byService(
    readEnv(
      env,
      perService('_DATABASE_URL', () => url(POSTGRES)),
    ),
    '_DATABASE_URL',
  );
  const databaseUrls = Object.fromEntries(
    SERVICE_NAMES.map((s) => [s, explicit[s] ?? databaseUrl(pgUrl, `${dbPrefix}_${s}`)]),
  ) as Record<ServiceName, string>;
  return { pgUrl, dbPrefix, databaseUrls };
}

function readSecrets(env: Env, where: { production: boolean; dataDir: string }) {
  const read = readEnv(env, {
    INTERNAL_API_KEY: secret('INTERNAL_API_KEY', where),
    INTERNAL_TOKEN_SECRET: secret('INTERNAL_TOKEN_SECRET', where),
  });
  // One value for both secrets would let whoever holds the internal key also forge identity tokens.
  if (where.production && read.INTERNAL_API_KEY === read.INTERNAL_TOKEN_SECRET) {
    throw new ConfigError('INTERNAL_TOKEN_SECRET', 'must differ from INTERNAL_API_KEY when NODE_ENV=production');
  }
  return { internalApiKey: read.INTERNAL_API_KEY, internalTokenSecret: read.INTERNAL_TOKEN_SECRET };
}

/** Reads the shared configuration; a bad value throws a ConfigError naming its variable. */
export function loadConfig(env: Env = process.env): Config {
  const first = readEnv(env, {
    DATA_DIR: text(join(repoRoot, '.data')),
    SERVICE_HOST: text('127.0.0.1'),
    PORT: wholeNumber(8080, PORT),
  });
  const production = isProduction(env);
  const dataDir = resolve(first.DATA_DIR);
  const gatewayPort = first.PORT;

  const addresses = readAddresses(env, first.SERVICE_HOST);
  const databases = readDatabases(env);
  const secrets = readSecrets(env, { production, dataDir });

  const rest = readEnv(env, {
    LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    GATEWAY_URL: url(HTTP, `http://${first.SERVICE_HOST}:${gatewayPort}`),
    HOST: text('0.0.0.0'),
    METRICS_PORT: optionalWholeNumber(PORT),
    METRICS_HOST: text(),
    NATS_URL: url(['nats:', 'tls:'], 'nats://127.0.0.1:4222'),
    EVENTS_STREAM: matching(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or - (max 64)', 'WIKI'),
    EVENTS_PREFIX: matching(/^[a-z0-9_-]{1,64}$/, 'lowercase letters, digits, _ or - (max 64)', 'wiki'),
    REDIS_URL: url(['redis:', 'rediss:'], 'redis://127.0.0.1:6379'),
    // At least what one bounded event needs (64 KiB of text or 1,000 ids, libs/events/src/limits.ts).
    EVENT_MAX_BYTES: wholeNumber(256 * 1024, { min: 128 * 1024, max: 64 * 1024 * 1024 }),
    SHUTDOWN_DELAY_MS: wholeNumber(0, { min: 0, max: 120_000 }),
  });

  return {
    env: Object.freeze({ ...env }),
    logLevel: rest.LOG_LEVEL,
    dataDir,
    gatewayPort,
    gatewayUrl: rest.GATEWAY_URL,
    ...addresses,
    listenHost: rest.HOST,
    metrics: { port: rest.METRICS_PORT, host: rest.METRICS_HOST },
    ...databases,
    natsUrl: rest.NATS_URL,
    eventsStream: rest.EVENTS_STREAM,
    eventsPrefix: rest.EVENTS_PREFIX,
    redisUrl: rest.REDIS_URL,
    ...secrets,
    eventMaxBytes: rest.EVENT_MAX_BYTES,
    shutdownDelayMs: rest.SHUTDOWN_DELAY_MS,
  };
}
