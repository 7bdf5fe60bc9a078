/**
 * Tells a failure of something the process depends on (Postgres, Redis, NATS, a peer's socket)
 * from a bug: the first is answered 503 with Retry-After ("unavailable, retry"), logged as a
 * warning naming the dependency; consumers retry it without counting it towards dead-lettering.
 * The errors are recognised by their shape (codes, class and error names, the clients' messages),
 * so this module imports none of the clients.
 */
export interface DependencyOutage {
  /** `postgres`, `redis`, `nats`, `elasticsearch`, or what a socket error's address was registered as (else `host:port`). */
  dependency: string;
  /** A short text for the log: the code or message that gave it away. */
  reason: string;
}

/** What a client is told to wait before retrying a request that met an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs of a lost or refused database: class 08 (connection exception), 57P01-57P03 (the
 * server shutting down, crashed, or not accepting yet) and 53300 (no connection slot left).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

/** slonik's classes for a connection that could not be made or was cut (their `name` is plain `Error`). */
const SLONIK_CONNECTION_CLASSES = new Set([
  'ConnectionError',
  'BackendTerminatedError',
  'BackendTerminatedUnexpectedlyError',
]);

/** node-postgres' and slonik's own messages for a connection that is gone, never made, or a pool that closed. */
const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^Connection pool (is being terminated|has ended|is being shut down|has been shut down)/,
];

/** ioredis' errors for a connection that is down (its ReplyErrors LOADING and MASTERDOWN: a server not serving yet). */
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /enableOfflineQueue options is false/,
  /^Command timed out$/,
  /^(LOADING|MASTERDOWN) /,
];

/** The Elasticsearch client's errors for a node it cannot reach or that does not answer (they carry `meta`). */
const ELASTICSEARCH_ERRORS = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError']);

/**
 * @nats-io client errors (they set `name`) for a connection that is closed, draining, or a request
 * nobody answered (a RequestError wraps the last two as its cause).
 */
const NATS_ERRORS: Record<string, (message: string) => boolean> = {
  ClosedConnectionError: () => true,
  DrainingConnectionError: () => true,
  ConnectionError: () => true,
  TimeoutError: (message) => message === 'timeout',
  NoResponders: (message) => message.startsWith('no responders'),
};

/** Socket error codes of an outbound connection that could not be made or broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** `host:port` -> dependency name, so that a bare socket error (pg's refused connect) names what it is. */
const knownEndpoints = new Map<string, string>();

/**
 * Registers the address of a dependency (its URL) under a name, e.g. the database URL as
 * `postgres`: a socket error towards it is then reported as that dependency.
 */
export function nameDependency(url: string, name: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url.includes('://') ? url : `tcp://${url}`);
  } catch {
    return;
  }
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol] || '';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  knownEndpoints.set(`${host}:${port}`, name);
  if (host === 'localhost') {
    knownEndpoints.set(`127.0.0.1:${port}`, name);
    knownEndpoints.set(`::1:${port}`, name);
  }
}

const DEFAULT_PORTS: Record<string, string> = {
  'postgres:': '5432',
  'postgresql:': '5432',
  'redis:': '6379',
  'rediss:': '6379',
  'nats:': '4222',
  'tcp:': '4222',
};

/** The registered name of `host:port` (of the host alone when the error gives no port, as a DNS failure), else the address. */
function endpointName(host: string | undefined, port: string | undefined): string {
  if (host === undefined) return 'a dependency';
  if (port !== undefined) return knownEndpoints.get(`${host}:${port}`) ?? `${host}:${port}`;
  for (const [endpoint, name] of knownEndpoints) if (endpoint.startsWith(`${host}:`)) return name;
  return host;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  hostname?: unknown;
  port?: unknown;
  cause?: unknown;
  errors?: unknown;
  constructor?: { name?: string };
}

/** The outage an error (or one it wraps, as `cause` or in an AggregateError) stands for, else null. */
export function dependencyOutage(error: unknown): DependencyOutage | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 10) {
    const current = queue.shift();
    if (!current || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const found = classify(current as ErrorLike);
    if (found) return found;
    const { cause, errors } = current as ErrorLike;
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return null;
}

function classify(error: ErrorLike): DependencyOutage | null {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const name = typeof error.name === 'string' ? error.name : '';
  const className = error.constructor?.name ?? '';
  const message = typeof error.message === 'string' ? error.message : '';

  if (code && POSTGRES_UNAVAILABLE.test(code)) return { dependency: 'postgres', reason: `SQLSTATE ${code}` };
  if (ELASTICSEARCH_ERRORS.has(name) && 'meta' in error) return { dependency: 'elasticsearch', reason: name };
  // NATS' ConnectionError names itself; slonik's keeps the name `Error`.
  if (Object.hasOwn(NATS_ERRORS, name) && NATS_ERRORS[name](message)) return { dependency: 'nats', reason: name };
  if (SLONIK_CONNECTION_CLASSES.has(className)) return { dependency: 'postgres', reason: className };
  if (POSTGRES_MESSAGES.some((pattern) => pattern.test(message))) return { dependency: 'postgres', reason: message };
  if (name === 'MaxRetriesPerRequestError') return { dependency: 'redis', reason: name };
  if (REDIS_MESSAGES.some((pattern) => pattern.test(message))) return { dependency: 'redis', reason: message };
  // A socket of ours (it has a syscall: connect, read, write, getaddrinfo), not a client's request
  // that was aborted (Node's `aborted` ECONNRESET has none).
  if (code && SOCKET_CODES.has(code) && typeof error.syscall === 'string') {
    const host = typeof error.address === 'string' ? error.address : error.hostname;
    const port = typeof error.port === 'number' || typeof error.port === 'string' ? String(error.port) : undefined;
    return { dependency: endpointName(typeof host === 'string' ? host : undefined, port), reason: code };
  }
  return null;
}
