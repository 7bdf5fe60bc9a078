import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { type Config, loadConfig, type ServiceName } from '@wiki/config';
import { dropDatabasesWithPrefix } from '@wiki/db';
import { startMetricsListener } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { type JwksServer, startJwks } from './jwks.js';
import { uniqueName } from './names.js';

export interface RunningPart {
  app: FastifyInstance;
  stop(): Promise<void>;
}
export type StartPart = (config: Config) => Promise<RunningPart>;

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  token: string;
}

export interface Stack {
  config: Config;
  gatewayUrl: string;
  jwks: JwksServer;
  /** Base URL of each running service (bypassing the gateway). */
  serviceUrls: Partial<Record<ServiceName, string>>;
  /** Base URL of each part's metrics listener (`/metrics` is never on the API's port). */
  metricsUrls: Partial<Record<ServiceName | 'gateway', string>>;
  tokenFor(email: string, name?: string): Promise<string>;
  /** Signs a user in through the gateway (creating the local user) and returns their id and token. */
  signIn(email: string, name?: string): Promise<SignedInUser>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

export interface StackOptions {
  gateway: StartPart;
  services: Partial<Record<ServiceName, StartPart>>;
  /** Extra environment (e.g. RATE_LIMIT_ENABLED=true). */
  env?: Record<string, string>;
}

/** Variables taken from the ambient environment; everything else is fixed for isolation. */
const INHERITED = ['PG_URL', 'NATS_URL', 'REDIS_URL', 'CHROMIUM_PATH'];

/**
 * For a test that talks to a service's database or bus but signs nobody in: an identity provider
 * that is never asked (nothing listens on port 9).
 */
export const UNUSED_IDP: Pick<JwksServer, 'issuer' | 'jwksUrl' | 'audience'> = {
  issuer: 'http://127.0.0.1:9/realms/unused',
  jwksUrl: 'http://127.0.0.1:9/certs',
  audience: 'unused',
};

/**
 * Makes a configuration private to one test file: its own database prefix, event stream,
 * subject prefix, secrets and data folder, with the gateway in `oidc` mode against `jwks`.
 */
export function isolatedConfig(
  jwks: Pick<JwksServer, 'issuer' | 'jwksUrl' | 'audience'>,
  env: Record<string, string> = {},
): Config {
  const name = uniqueName();
  const base: Record<string, string> = {};
  for (const key of INHERITED) if (process.env[key]) base[key] = process.env[key]!;
  return loadConfig({
    ...base,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)),
    DB_PREFIX: name,
    EVENTS_STREAM: name.toUpperCase(),
    EVENTS_PREFIX: name.replace(/_/g, '-'),
    AUTH_PROVIDER: 'oidc',
    AUTH_ISSUER: jwks.issuer,
    AUTH_JWKS_URL: jwks.jwksUrl,
    AUTH_AUDIENCE: jwks.audience,
    INTERNAL_API_KEY: randomBytes(24).toString('base64url'),
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_ENABLED: 'false',
    INVITE_URL: 'http://wiki.test',
    ...env,
  });
}

/** Deletes every key matching `pattern` (SCAN, so a large keyspace is not blocked). */
export async function deleteRedisKeys(url: string, pattern: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** Listens on a free loopback port, and serves `/metrics` on another (port 0, as METRICS_PORT=0 would). */
async function listen(app: FastifyInstance): Promise<{ url: string; metricsUrl: string }> {
  const metrics = await startMetricsListener(app, { host: '127.0.0.1', port: 0 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, metricsUrl: metrics.url };
}

/**
 * Removes what a configuration made outside the process: databases, the stream, Redis keys under
 * its prefix (the export service's queue lives at `<DB_PREFIX>:bull:...`), the data folder.
 */
export async function cleanupConfig(config: Config): Promise<void> {
  await dropDatabasesWithPrefix(config.pgUrl, config.dbPrefix).catch(() => undefined);
  await deleteRedisKeys(config.redisUrl, `${config.dbPrefix}:*`).catch(() => undefined);
  const nc = await connect({ servers: config.natsUrl }).catch(() => undefined);
  if (nc) {
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(config.eventsStream).catch(() => undefined);
    } finally {
      await nc.close();
    }
  }
  rmSync(config.dataDir, { recursive: true, force: true });
}

/**
 * Runs the gateway and the given services in this process, each on its own port, against
 * throw-away databases and a private stream. Services start first so the gateway knows their URLs.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const jwks = await startJwks();
  const started = Object.keys(options.services).join(',');
  const config = isolatedConfig(jwks, { GATEWAY_SERVICES: started, ...options.env });
  const parts: RunningPart[] = [];
  const serviceUrls: Partial<Record<ServiceName, string>> = {};
  const metricsUrls: Stack['metricsUrls'] = {};

  const stop = async () => {
    for (const part of parts.reverse()) await part.stop().catch(() => undefined);
    await jwks.close();
    await cleanupConfig(config);
  };

  try {
    // All at once: each mostly waits on Postgres (creating its database, migrating) and NATS. A
    // service reads its peers' URLs from the config at each call, not at start, so order is free.
    const failures: unknown[] = [];
    await Promise.all(
      (Object.entries(options.services) as [ServiceName, StartPart][]).map(async ([name, start]) => {
        try {
          const part = await start(config);
          parts.push(part);
          const listening = await listen(part.app);
          serviceUrls[name] = listening.url;
          metricsUrls[name] = listening.metricsUrl;
          config.urls[name] = listening.url;
        } catch (error) {
          failures.push(error);
        }
      }),
    );
    if (failures.length > 0) throw failures[0];
    const gateway = await options.gateway(config);
    parts.push(gateway);
    const { url: gatewayUrl, metricsUrl } = await listen(gateway.app);
    metricsUrls.gateway = metricsUrl;
    config.gatewayUrl = gatewayUrl;

    const { tokenFor, request, signIn } = gatewayClient(gatewayUrl, jwks);

    return { config, gatewayUrl, jwks, serviceUrls, metricsUrls, tokenFor, signIn, request, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * How tests reach a running gateway: tokens from the test IdP (like a Keycloak realm that verifies
 * addresses, it vouches for every email it signs), requests with JSON bodies parsed, and sign-in
 * (the account exists from its first request).
 */
export function gatewayClient(gatewayUrl: string, jwks: JwksServer): Pick<Stack, 'tokenFor' | 'request' | 'signIn'> {
  const tokenFor = (email: string, name?: string) =>
    jwks.mint({ sub: `idp|${email.toLowerCase()}`, email, email_verified: true, name: name ?? email.split('@')[0] });

  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${gatewayUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    if (text === '') parsed = null;
    return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed as T };
  };

  const signIn = async (email: string, name?: string): Promise<SignedInUser> => {
    const token = await tokenFor(email, name);
    const me = await request<{ data: { id: string; name: string } }>('GET', '/api/v1/users/me', { token });
    if (me.status !== 200) throw new Error(`sign-in of ${email} failed: ${me.status} ${JSON.stringify(me.body)}`);
    return { id: me.body.data.id, email, name: me.body.data.name, token };
  };
  return { tokenFor, request, signIn };
}
