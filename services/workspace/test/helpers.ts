import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import {
  type ApiResponse,
  cleanupConfig,
  isolatedConfig,
  type OutboxEvent,
  type RequestOptions,
  readOutbox,
  type SignedInUser,
  type TestApi,
  UNUSED_IDP,
} from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { startPlatform } from '../../../test/platform.js';
import { buildApp } from '../src/app.js';
import { workspaceService } from '../src/service.js';

/**
 * Two ways to run the same scenarios:
 * - `service`: the app alone on a throw-away database, through app.inject, with identity tokens
 *   minted the way the gateway mints them; no NATS (events stay in the outbox). Fast.
 * - `gateway`: the real gateway and the whole service (relay, consumer) through HTTP, signed in
 *   with OIDC tokens from a test JWKS. What a client sees.
 */
export type Mode = 'service' | 'gateway';
export const MODES: Mode[] = ['service', 'gateway'];

export interface CallOptions {
  as?: SignedInUser;
  body?: unknown;
}

/**
 * The factories of @wiki/testing work on a harness in either mode: `signIn` gives a user whose
 * `token` authenticates them in the mode (the x-wiki-identity token, or the bearer token), and
 * `request` sends it the way the mode does.
 */
export interface Harness extends TestApi {
  mode: Mode;
  config: Config;
  /** A pool on the service's database, for setting up states (expired invitations) and reading the outbox. */
  pool: DatabasePool;
  /** A public API call as `as` (through the gateway in gateway mode). */
  call<T = any>(method: string, url: string, opts?: CallOptions): Promise<ApiResponse<T>>;
  /** A call straight to the service (bypassing the gateway), as a service unless `identity` is given (null: none). */
  direct<T = any>(
    method: string,
    url: string,
    opts?: { body?: unknown; identity?: string | null },
  ): Promise<ApiResponse<T>>;
  /** Events written to the outbox, oldest first. */
  outbox(type?: string): Promise<OutboxEvent[]>;
  stop(): Promise<void>;
}

export async function startHarness(mode: Mode, env: Record<string, string> = {}): Promise<Harness> {
  return mode === 'service' ? startServiceHarness(env) : startGatewayHarness(env);
}

async function inject(
  app: FastifyInstance,
  method: string,
  url: string,
  identity: string | undefined,
  options: Omit<RequestOptions, 'token'> = {},
): Promise<ApiResponse> {
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...options.headers, ...(identity ? { 'x-wiki-identity': identity } : {}) },
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  });
  const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
  return { status: res.statusCode, body: res.body ? res.json() : null, headers };
}

async function startServiceHarness(env: Record<string, string>): Promise<Harness> {
  const config = isolatedConfig(UNUSED_IDP, env);
  const url = config.databaseUrls.workspace;
  await prepareDatabase(workspaceService, config);
  const pool = await createDatabasePool(url);
  const app = await buildApp(config, { pool, logLevel: process.env.TEST_APP_LOG ?? 'silent' });
  await app.ready();
  const serviceToken = await mintServiceToken(config.internalTokenSecret, 'gateway', 3600);

  const direct = (method: string, url: string, opts: { body?: unknown; identity?: string | null } = {}) =>
    inject(app, method, url, opts.identity === null ? undefined : (opts.identity ?? serviceToken), opts);
  const request = (method: string, url: string, options: RequestOptions = {}) =>
    inject(app, method, url, options.token, options);

  return {
    mode: 'service',
    config,
    pool,
    direct,
    request,
    call: (method, url, opts = {}) => request(method, url, { token: opts.as?.token, body: opts.body }),
    async signIn(email, name) {
      const res = await direct('POST', '/internal/users/resolve', {
        body: { idpUid: `idp|${email.toLowerCase()}`, email, emailVerified: true, name },
      });
      if (res.status !== 200) throw new Error(`resolve ${email}: ${res.status} ${JSON.stringify(res.body)}`);
      const { id, name: storedName } = res.body.data;
      const token = await mintIdentityToken(
        config.internalTokenSecret,
        { kind: 'user', userId: id, email, emailVerified: true, name: storedName },
        3600,
      );
      return { id, email, name: storedName, token };
    },
    outbox: (type) => readOutbox(pool, type),
    async stop() {
      await app.close();
      await pool.end();
      await cleanupConfig(config);
    },
  };
}

async function startGatewayHarness(env: Record<string, string>): Promise<Harness> {
  const stack = await startPlatform(['workspace'], { env });
  const pool = await createDatabasePool(stack.config.databaseUrls.workspace);
  const serviceToken = await mintServiceToken(stack.config.internalTokenSecret, 'gateway', 3600);
  const base = stack.serviceUrls.workspace!;

  return {
    mode: 'gateway',
    config: stack.config,
    pool,
    request: stack.request,
    signIn: stack.signIn,
    call: (method, url, opts = {}) => stack.request(method, url, { token: opts.as?.token, body: opts.body }),
    async direct(method, url, opts = {}) {
      const headers: Record<string, string> = {};
      const identity = opts.identity === null ? undefined : (opts.identity ?? serviceToken);
      if (identity) headers['x-wiki-identity'] = identity;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${url}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: Object.fromEntries(res.headers) };
    },
    outbox: (type) => readOutbox(pool, type),
    async stop() {
      await pool.end();
      await stack.stop();
    },
  };
}

/** Sets an invitation's expiry in the past, as if its days had run out. */
export async function expireInvitation(pool: DatabasePool, invitationId: string): Promise<void> {
  await pool.query(
    sql.unsafe`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = ${invitationId}`,
  );
}

export const tokenOf = (inviteLink: string): string => inviteLink.split('/invite/')[1];
