import { createHash, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { IDENTITY_HEADER, verifyIdentityToken } from '@wiki/auth';
import type { Config, ServiceName } from '@wiki/config';
import { createLimitsRedis as createRedis } from '@wiki/limits';
import { isolatedConfig } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp, type GatewayDeps } from '../../src/app.js';
import type { TestIdp } from './idp.js';
import { type FakeService, readBody, sendJson, startFakeService } from './upstreams.js';

/** The services the routing table sends traffic to; each gets a fake in these tests. */
export const PROXIED: ServiceName[] = [
  'workspace',
  'document',
  'search',
  'export',
  'comment',
  'attachment',
  'notification',
  'mcp',
];

export interface ResolvedUser {
  id: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  avatarUrl?: string | null;
  idpUid: string;
}

export interface TestGateway {
  app: FastifyInstance;
  config: Config;
  redis: Redis;
  fakes: Record<ServiceName, FakeService>;
  /** Local users the fake workspace service made, by idp uid. */
  users: Map<string, ResolvedUser>;
  /** Bodies of every `/internal/users/resolve` call. */
  resolveCalls: Array<Record<string, unknown>>;
  /** The `x-request-id` of every internal call the fake workspace service answered. */
  internalRequestIds: Array<string | undefined>;
  /** Statuses the fake workspace service answers a resolve with instead, by idp uid. */
  resolveStatus: Map<string, number>;
  /** MCP keys the fake workspace service knows, key -> user. */
  mcpKeys: Map<string, ResolvedUser>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  idp: Pick<TestIdp, 'issuer' | 'jwksUrl' | 'audience'>;
  env?: Record<string, string>;
  deps?: Partial<GatewayDeps>;
  /** Services not to fake (their URL then comes from `env`). */
  without?: ServiceName[];
}

/**
 * Builds the gateway (not listening; use `app.inject` or `app.listen({ port: 0 })`) in front of
 * fake services, with a private configuration: its own data folder, secrets and Redis key prefix.
 * The fake workspace service implements the two internal routes the gateway calls and checks that
 * they carry a `service` identity token from the gateway.
 */
export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const fakes = {} as Record<ServiceName, FakeService>;
  const serviceEnv: Record<string, string> = {};
  for (const name of PROXIED) {
    if (options.without?.includes(name)) continue;
    fakes[name] = await startFakeService(name);
    serviceEnv[`${name.toUpperCase()}_URL`] = fakes[name].url;
  }
  const config = isolatedConfig(options.idp, { AUTH_CLIENT_ID: 'wiki-web', ...serviceEnv, ...options.env });

  const users = new Map<string, ResolvedUser>();
  const resolveCalls: Array<Record<string, unknown>> = [];
  const internalRequestIds: Array<string | undefined> = [];
  const resolveStatus = new Map<string, number>();
  const mcpKeys = new Map<string, ResolvedUser>();
  const workspace = fakes.workspace;
  workspace?.on(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/internal/')) return false;
    const caller = await verifyIdentityToken(
      config.internalTokenSecret,
      String(req.headers[IDENTITY_HEADER] ?? ''),
    ).catch(() => null);
    if (caller?.kind !== 'service' || caller.service !== 'gateway') return sendJson(res, 401, { success: false });
    internalRequestIds.push(req.headers['x-request-id'] as string | undefined);
    const body = JSON.parse(await readBody(req)) as Record<string, any>;
    if (req.url === '/internal/users/resolve') {
      resolveCalls.push(body);
      const status = resolveStatus.get(body.idpUid);
      if (status) return sendJson(res, status, { success: false, error: { code: 'REFUSED', message: 'refused' } });
      const existing = users.get(body.idpUid);
      const user: ResolvedUser = {
        id: existing?.id ?? randomUUID(),
        idpUid: body.idpUid,
        email: body.email,
        emailVerified: body.emailVerified === true,
        name: body.name,
        avatarUrl: body.avatarUrl ?? null,
      };
      users.set(body.idpUid, user);
      return sendJson(res, 200, { success: true, data: user });
    }
    if (req.url === '/internal/mcp-keys/resolve') {
      const owner = mcpKeys.get(body.key);
      if (!owner) return sendJson(res, 404, { success: false, error: { code: 'NOT_FOUND', message: 'unknown key' } });
      return sendJson(res, 200, {
        success: true,
        data: {
          userId: owner.id,
          email: owner.email,
          name: owner.name,
          avatarUrl: owner.avatarUrl,
          idpUid: owner.idpUid,
        },
      });
    }
    return false;
  });

  const redis = createRedis(config.redisUrl);
  redis.on('error', () => undefined);
  await ready(redis);
  const app = await buildApp(config, { redis, ...options.deps });
  await app.ready();

  return {
    app,
    config,
    redis,
    fakes,
    users,
    resolveCalls,
    internalRequestIds,
    resolveStatus,
    mcpKeys,
    async close() {
      await app.close();
      await deleteKeys(redis, `${config.eventsPrefix}:`).catch(() => undefined);
      redis.disconnect();
      await Promise.all(Object.values(fakes).map((f) => f.close()));
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until the client is connected (it refuses commands before: no offline queue). */
function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis did not become ready')), 5_000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Removes this run's keys from the shared Redis. */
async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  await ready(redis);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** The identity a fake service received, verified as a service would. */
export function forwardedIdentity(gateway: TestGateway, headers: Record<string, unknown>) {
  return verifyIdentityToken(gateway.config.internalTokenSecret, String(headers[IDENTITY_HEADER]));
}

/** An MCP key of the issued shape (`wmk_` and 43 base64url characters), the same for the same seed. */
export function mcpKeyOf(seed: string): string {
  return `wmk_${createHash('sha256').update(seed).digest('base64url')}`;
}
