import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { weakSecretReason } from './production-secrets.js';

export { KNOWN_PLACEHOLDERS, PRODUCTION_SECRET_MIN_LENGTH, weakSecretReason } from './production-secrets.js';

export const SERVICE_NAMES = [
  'workspace',
  'document',
  'search',
  'comment',
  'attachment',
  'notification',
  'export',
  'mcp',
  'collab',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const DEFAULT_SERVICE_PORTS: Record<ServiceName, number> = {
  workspace: 8081,
  document: 8082,
  search: 8083,
  comment: 8084,
  attachment: 8085,
  notification: 8086,
  export: 8087,
  mcp: 8088,
  collab: 8089,
};

/** The services this repository implements so far: what the gateway expects by default. */
export const IMPLEMENTED_SERVICES: ServiceName[] = [
  'workspace',
  'document',
  'comment',
  'search',
  'notification',
  'attachment',
  'export',
  'collab',
  'mcp',
];

export type AuthProvider = 'dev' | 'oidc' | 'firebase';

/** The per-user (per-key) bounds on long-lived connections when nothing else is set (ARCHITECTURE 5.14). */
export const DEFAULT_CONNECTION_LIMITS = {
  notificationStreamsPerUser: 10,
  collabConnectionsPerUser: 50,
  collabUpdatesPerSecond: 50,
  collabUpdatesBurst: 500,
  mcpSessionsPerKey: 10,
} as const;

export interface Config {
  nodeEnv: string;
  logLevel: string;
  /** Folder for local state: dev keys, dev secrets, local object storage. */
  dataDir: string;
  gatewayPort: number;
  gatewayUrl: string;
  /** Services whose readiness the gateway's /actuator/health reports (GATEWAY_SERVICES). */
  gatewayServices: ServiceName[];
  /** Fastify `trustProxy` for the gateway (TRUST_PROXY): false, true, a hop count or addresses. */
  trustProxy: boolean | number | string;
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
   * and the calls between services (libs/auth PeerReplicas) spread over them.
   */
  replicaUrls: Record<ServiceName, string[]>;
  pgUrl: string;
  dbPrefix: string;
  databaseUrls: Record<ServiceName, string>;
  natsUrl: string;
  eventsStream: string;
  eventsPrefix: string;
  redisUrl: string;
  auth: {
    provider: AuthProvider;
    issuer?: string;
    jwksUrl?: string;
    audience?: string;
    clientId?: string;
    firebaseProjectId?: string;
    /**
     * Whether an email counts as verified when the provider's token has no `email_verified`
     * claim (a `false` claim is never overridden; `dev` tokens are always verified).
     */
    emailVerifiedDefault: boolean;
  };
  internalApiKey: string;
  internalTokenSecret: string;
  inviteUrl: string;
  invitationTtlDays: number;
  rateLimit: {
    enabled: boolean;
    userPerMin: number;
    publicPerMin: number;
    /** Refused credentials (bad JWT, internal key or MCP key) per client IP per minute. */
    authFailuresPerMin: number;
  };
  storage: {
    driver: 'local' | 's3';
    localDir: string;
    s3Endpoint?: string;
    s3Bucket: string;
    s3AccessKey?: string;
    s3SecretKey?: string;
    s3Region: string;
  };
  searchEngine: 'postgres' | 'elasticsearch';
  elasticsearchUrl?: string;
  /**
   * The Postgres text search configuration (SEARCH_TS_CONFIG, default 'simple') whose lexemes the
   * Postgres engine adds beside its own folded words, n-grams and suffixes (e.g. 'english' for stems).
   */
  searchTsConfig: string;
  chromiumPath: string;
  uploadMaxBytes: number;
  /**
   * ATTACHMENTS_KEEP_METADATA=true stores JPEG, PNG and WebP uploads as sent; by default their
   * EXIF (GPS included), XMP, IPTC and text chunks are removed and their orientation applied.
   */
  attachmentsKeepMetadata: boolean;
  /**
   * The most pixels (all frames) an image cleaned on upload may have (ATTACHMENTS_IMAGE_MAX_PIXELS,
   * default 50 million; WebP a quarter of it): what bounds the memory cleaning takes. Larger is 413.
   */
  attachmentsImageMaxPixels: number;
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
  /**
   * How often the notification stream sends a heartbeat comment (NOTIFICATION_HEARTBEAT_MS,
   * default 25 s): under the idle timeouts of common proxies; tests shorten it.
   */
  notificationHeartbeatMs: number;
  /**
   * Long-lived connections per user or key, counted across every replica (ARCHITECTURE 5.14).
   * At the limit a new notification stream or MCP SSE session closes the oldest one; a collab
   * connection is refused.
   */
  connectionLimits: {
    /** Open notification streams per user (NOTIFICATION_STREAMS_PER_USER, default 10). */
    notificationStreamsPerUser: number;
    /** Collab connections (one per document a provider opens) per user (COLLAB_CONNECTIONS_PER_USER, default 50). */
    collabConnectionsPerUser: number;
    /** Messages per second one collab WebSocket may send in the long run (COLLAB_UPDATES_PER_SECOND, default 50). */
    collabUpdatesPerSecond: number;
    /** Messages one collab WebSocket may send at once (COLLAB_UPDATES_BURST, default 500). */
    collabUpdatesBurst: number;
    /** Open MCP SSE sessions per MCP key (MCP_SESSIONS_PER_KEY, default 10). */
    mcpSessionsPerKey: number;
  };
  /**
   * Browser origins allowed to call the gateway cross-origin and to open the collaboration
   * WebSocket (CORS_ORIGINS, comma-separated, e.g. `https://wiki.example.com`); none by default.
   */
  corsOrigins: string[];
  collab: {
    /** Quiet time after an edit before a room is stored (COLLAB_DEBOUNCE_MS, default 2000). */
    debounceMs: number;
    /** Longest a room under constant editing goes unsaved (COLLAB_MAX_DEBOUNCE_MS, default 10000). */
    maxDebounceMs: number;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** The repository root (libs/config/{src,dist}/index.* lives two levels below it). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function str(env: Env, name: string, fallback: string): string;
function str(env: Env, name: string): string | undefined;
function str(env: Env, name: string, fallback?: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string;
function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined;
function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = str(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

function name(env: Env, varName: string, fallback: string, pattern: RegExp, what: string): string {
  const raw = str(env, varName, fallback);
  if (!pattern.test(raw)) throw new ConfigError(varName, `must be ${what}, got "${raw}"`);
  return raw;
}

/** The URL of another database on the same server as `serverUrl`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function serviceList(env: Env, varName: string, fallback: ServiceName[]): ServiceName[] {
  const raw = str(env, varName)?.trim();
  if (raw === undefined || raw === '') return [...fallback];
  // The collaboration server answers /health/ready over HTTP beside its WebSocket: it counts too.
  if (raw === 'all') return [...SERVICE_NAMES];
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.find((n) => !(SERVICE_NAMES as readonly string[]).includes(n));
  if (unknown)
    throw new ConfigError(varName, `names an unknown service "${unknown}" (known: ${SERVICE_NAMES.join(', ')})`);
  return names as ServiceName[];
}

function origins(env: Env, varName: string): string[] {
  const raw = str(env, varName)?.trim();
  if (!raw) return [];
  return [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((value) => {
          let parsed: URL | undefined;
          try {
            parsed = new URL(value);
          } catch {}
          // An origin is scheme, host and port: nothing else would ever equal a browser's Origin header.
          if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== value.replace(/\/$/, '')) {
            throw new ConfigError(varName, `must list origins like https://wiki.example.com, got "${value}"`);
          }
          return parsed.origin;
        }),
    ),
  ];
}

function trustProxy(env: Env): boolean | number | string {
  const raw = str(env, 'TRUST_PROXY')?.trim();
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (!/^[0-9a-fA-F.:/, ]+$/.test(raw))
    throw new ConfigError('TRUST_PROXY', `must be true, false, a hop count or addresses, got "${raw}"`);
  return raw;
}

/** How far above a part's own port its `/metrics` listener is by default (METRICS_PORT unset). */
export const METRICS_PORT_OFFSET = 1000;

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Where a part listens: its API on `port` (its PORT or <SERVICE>_PORT) and host HOST, and its
 * `/metrics` apart (ARCHITECTURE 5.14): METRICS_PORT, else `port` + 1000 (so replicas at port + 100
 * each get their own), else 0 when `port` is 0 (any free port: ask the listener which); on
 * METRICS_HOST, else the API's host, but loopback on a part that `facesNetwork` (the gateway).
 */
export function listenAddresses(
  config: Pick<Config, 'listenHost' | 'metrics'>,
  port: number,
  { facesNetwork = false } = {},
): { api: ListenAddress; metrics: ListenAddress } {
  let metricsPort = config.metrics.port;
  if (metricsPort === undefined) {
    metricsPort = port === 0 ? 0 : port + METRICS_PORT_OFFSET;
    if (metricsPort > 65535) {
      throw new ConfigError(
        'METRICS_PORT',
        `must be set: the default, port ${port} + ${METRICS_PORT_OFFSET}, is past 65535`,
      );
    }
  }
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from the API's port (${port}): /metrics is never served there`);
  }
  const metricsHost = config.metrics.host ?? (facesNetwork ? '127.0.0.1' : config.listenHost);
  return { api: { host: config.listenHost, port }, metrics: { host: metricsHost, port: metricsPort } };
}

/** Hides the password of a connection URL so it can be logged or shown in errors. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]+):([^@/]+)@/, '//$1:***@');
}

/**
 * Secrets that a local start needs but nobody configured: made once and kept in
 * `<dataDir>/dev-secrets.json`, so that separately started services agree on them.
 * Production must set them explicitly.
 */
function devSecret(dataDir: string, key: string): string {
  const file = join(dataDir, 'dev-secrets.json');
  let secrets: Record<string, string> = {};
  if (existsSync(file)) secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  if (!secrets[key]) {
    secrets[key] = randomBytes(32).toString('base64url');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets[key];
}

/** The secrets a local start generated in `dataDir` (none when it never ran there). */
function generatedDevSecrets(dataDir: string): string[] {
  const file = join(dataDir, 'dev-secrets.json');
  if (!existsSync(file)) return [];
  try {
    return Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>);
  } catch {
    return [];
  }
}

function secret(env: Env, varName: string, production: boolean, dataDir: string): string {
  const raw = str(env, varName);
  if (raw !== undefined) {
    if (raw.length < 16) throw new ConfigError(varName, 'must be at least 16 characters long');
    if (production) {
      // Messages name the variable, never the value (it would land in the logs).
      const reason = weakSecretReason(raw, generatedDevSecrets(dataDir));
      if (reason) throw new ConfigError(varName, reason);
    }
    return raw;
  }
  if (production) throw new ConfigError(varName, 'is required when NODE_ENV=production');
  return devSecret(dataDir, varName);
}

/** One value for both secrets would let whoever holds the internal key also forge identity tokens. */
function distinctSecrets(apiKey: string, tokenSecret: string, production: boolean): void {
  if (production && apiKey === tokenSecret) {
    throw new ConfigError('INTERNAL_TOKEN_SECRET', 'must differ from INTERNAL_API_KEY when NODE_ENV=production');
  }
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  const production = nodeEnv === 'production';
  const dataDir = resolve(str(env, 'DATA_DIR', join(repoRoot, '.data')));
  const host = str(env, 'SERVICE_HOST', '127.0.0.1');

  const gatewayPort = int(env, 'PORT', 8080, 0, 65535);
  const ports = {} as Record<ServiceName, number>;
  const urls = {} as Record<ServiceName, string>;
  const replicaUrls = {} as Record<ServiceName, string[]>;
  for (const service of SERVICE_NAMES) {
    const upper = service.toUpperCase();
    ports[service] = int(env, `${upper}_PORT`, DEFAULT_SERVICE_PORTS[service], 0, 65535);
    const fallback = `http://${host}:${ports[service]}`;
    const listed = (str(env, `${upper}_URL`) ?? fallback)
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    replicaUrls[service] = (listed.length > 0 ? listed : [fallback]).map((item) =>
      url({ [`${upper}_URL`]: item }, `${upper}_URL`, fallback, ['http:', 'https:']),
    );
    urls[service] = replicaUrls[service][0];
  }

  const pgUrl = url(env, 'PG_URL', 'postgres://postgres@127.0.0.1:5432', ['postgres:', 'postgresql:']);
  const dbPrefix = name(env, 'DB_PREFIX', 'wiki', /^[a-z][a-z0-9_]{0,39}$/, 'lowercase letters, digits and _ (max 40)');
  const databaseUrls = {} as Record<ServiceName, string>;
  for (const service of SERVICE_NAMES) {
    const explicit = url(env, `${service.toUpperCase()}_DATABASE_URL`, undefined, ['postgres:', 'postgresql:']);
    databaseUrls[service] = explicit ?? databaseUrl(pgUrl, `${dbPrefix}_${service}`);
  }

  const provider = oneOf(env, 'AUTH_PROVIDER', ['dev', 'oidc', 'firebase'] as const, 'dev');
  if (provider === 'dev' && production) {
    throw new ConfigError('AUTH_PROVIDER', 'dev is refused when NODE_ENV=production (use oidc or firebase)');
  }
  const issuer = url(env, 'AUTH_ISSUER', undefined, ['http:', 'https:']);
  const firebaseProjectId = str(env, 'FIREBASE_PROJECT_ID');
  if (provider === 'oidc' && !issuer) throw new ConfigError('AUTH_ISSUER', 'is required when AUTH_PROVIDER=oidc');
  // Without an audience, a token the realm issued to any other client would be accepted.
  if (provider === 'oidc' && !str(env, 'AUTH_AUDIENCE') && !str(env, 'AUTH_CLIENT_ID')) {
    throw new ConfigError('AUTH_AUDIENCE', 'or AUTH_CLIENT_ID is required when AUTH_PROVIDER=oidc');
  }
  if (provider === 'firebase' && !firebaseProjectId) {
    throw new ConfigError('FIREBASE_PROJECT_ID', 'is required when AUTH_PROVIDER=firebase');
  }

  const storageDriver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3'] as const, 'local');
  const s3Endpoint = url(env, 'S3_ENDPOINT', undefined, ['http:', 'https:']);
  if (storageDriver === 's3' && !s3Endpoint) throw new ConfigError('S3_ENDPOINT', 'is required when STORAGE_DRIVER=s3');
  const searchEngine = oneOf(env, 'SEARCH_ENGINE', ['postgres', 'elasticsearch'] as const, 'postgres');
  const elasticsearchUrl = url(env, 'ELASTICSEARCH_URL', undefined, ['http:', 'https:']);
  if (searchEngine === 'elasticsearch' && !elasticsearchUrl) {
    throw new ConfigError('ELASTICSEARCH_URL', 'is required when SEARCH_ENGINE=elasticsearch');
  }

  const internalApiKey = secret(env, 'INTERNAL_API_KEY', production, dataDir);
  const internalTokenSecret = secret(env, 'INTERNAL_TOKEN_SECRET', production, dataDir);
  distinctSecrets(internalApiKey, internalTokenSecret, production);

  return {
    nodeEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    dataDir,
    gatewayPort,
    gatewayUrl: url(env, 'GATEWAY_URL', `http://${host}:${gatewayPort}`, ['http:', 'https:']),
    gatewayServices: serviceList(env, 'GATEWAY_SERVICES', IMPLEMENTED_SERVICES),
    trustProxy: trustProxy(env),
    ports,
    listenHost: str(env, 'HOST', '0.0.0.0'),
    metrics: {
      port: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
      host: str(env, 'METRICS_HOST'),
    },
    urls,
    replicaUrls,
    pgUrl,
    dbPrefix,
    databaseUrls,
    natsUrl: url(env, 'NATS_URL', 'nats://127.0.0.1:4222', ['nats:', 'tls:']),
    eventsStream: name(env, 'EVENTS_STREAM', 'WIKI', /^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or - (max 64)'),
    eventsPrefix: name(
      env,
      'EVENTS_PREFIX',
      'wiki',
      /^[a-z0-9_-]{1,64}$/,
      'lowercase letters, digits, _ or - (max 64)',
    ),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    auth: {
      provider,
      issuer,
      jwksUrl: url(
        env,
        'AUTH_JWKS_URL',
        provider === 'oidc' && issuer ? `${issuer}/protocol/openid-connect/certs` : undefined,
        ['http:', 'https:'],
      ),
      audience: str(env, 'AUTH_AUDIENCE'),
      clientId: str(env, 'AUTH_CLIENT_ID'),
      firebaseProjectId,
      emailVerifiedDefault: bool(env, 'AUTH_EMAIL_VERIFIED_DEFAULT', false),
    },
    internalApiKey,
    internalTokenSecret,
    inviteUrl: url(env, 'INVITE_URL', `http://localhost:${gatewayPort}`, ['http:', 'https:']),
    invitationTtlDays: int(env, 'INVITATION_TTL_DAYS', 7, 1, 365),
    rateLimit: {
      enabled: bool(env, 'RATE_LIMIT_ENABLED', true),
      userPerMin: int(env, 'RATE_LIMIT_USER_PER_MIN', 600, 1),
      publicPerMin: int(env, 'RATE_LIMIT_PUBLIC_PER_MIN', 120, 1),
      authFailuresPerMin: int(env, 'RATE_LIMIT_AUTH_FAILURES_PER_MIN', 20, 1),
    },
    storage: {
      driver: storageDriver,
      localDir: resolve(str(env, 'STORAGE_LOCAL_DIR', join(dataDir, 'objects'))),
      s3Endpoint,
      s3Bucket: str(env, 'S3_BUCKET', 'wiki'),
      s3AccessKey: str(env, 'S3_ACCESS_KEY'),
      s3SecretKey: str(env, 'S3_SECRET_KEY'),
      s3Region: str(env, 'S3_REGION', 'us-east-1'),
    },
    searchEngine,
    elasticsearchUrl,
    searchTsConfig: name(
      env,
      'SEARCH_TS_CONFIG',
      'simple',
      /^[a-z_][a-z0-9_]{0,62}$/,
      'a text search configuration name',
    ),
    chromiumPath: str(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
    uploadMaxBytes: int(env, 'UPLOAD_MAX_BYTES', 25 * 1024 * 1024, 1),
    attachmentsKeepMetadata: bool(env, 'ATTACHMENTS_KEEP_METADATA', false),
    attachmentsImageMaxPixels: int(env, 'ATTACHMENTS_IMAGE_MAX_PIXELS', 50_000_000, 1_000_000, 1_000_000_000),
    // At least what one bounded event needs (64 KiB of text or 1,000 ids, libs/events/src/limits.ts).
    eventMaxBytes: int(env, 'EVENT_MAX_BYTES', 256 * 1024, 128 * 1024, 64 * 1024 * 1024),
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 0, 0, 120_000),
    notificationHeartbeatMs: int(env, 'NOTIFICATION_HEARTBEAT_MS', 25_000, 10, 3_600_000),
    connectionLimits: {
      notificationStreamsPerUser: int(
        env,
        'NOTIFICATION_STREAMS_PER_USER',
        DEFAULT_CONNECTION_LIMITS.notificationStreamsPerUser,
        1,
        10_000,
      ),
      collabConnectionsPerUser: int(
        env,
        'COLLAB_CONNECTIONS_PER_USER',
        DEFAULT_CONNECTION_LIMITS.collabConnectionsPerUser,
        1,
        100_000,
      ),
      collabUpdatesPerSecond: int(
        env,
        'COLLAB_UPDATES_PER_SECOND',
        DEFAULT_CONNECTION_LIMITS.collabUpdatesPerSecond,
        1,
        1_000_000,
      ),
      collabUpdatesBurst: int(env, 'COLLAB_UPDATES_BURST', DEFAULT_CONNECTION_LIMITS.collabUpdatesBurst, 1, 1_000_000),
      mcpSessionsPerKey: int(env, 'MCP_SESSIONS_PER_KEY', DEFAULT_CONNECTION_LIMITS.mcpSessionsPerKey, 1, 10_000),
    },
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    collab: {
      debounceMs: int(env, 'COLLAB_DEBOUNCE_MS', 2000, 0, 60_000),
      maxDebounceMs: int(env, 'COLLAB_MAX_DEBOUNCE_MS', 10_000, 0, 600_000),
    },
  };
}

/**
 * Loads the configuration or stops the process with a message naming the bad variable.
 * For `main.ts` files; tests call `loadConfig` and see the thrown `ConfigError`.
 */
export function loadConfigOrExit(env: Env = process.env): Config {
  return configOrExit(() => loadConfig(env));
}

/** Runs a reading of the configuration (loadConfig, listenAddresses) or stops as loadConfigOrExit does. */
export function configOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
