import { type Config, isProduction, SERVICE_NAMES, type ServiceName } from '@wiki/config';
import { createApp } from '@wiki/http';
import { createServiceClient } from '@wiki/service-client';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { McpKeys } from './auth/api-keys.js';
import { browserSignInOpenApi, registerBrowserSignIn } from './auth/browser-sign-in.js';
import { registerGatekeeper } from './auth/gatekeeper.js';
import { GuessingBudget } from './auth/guessing.js';
import { LocalUsers } from './auth/local-users.js';
import { providerFor } from './auth/providers/index.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { registerCollabIdentity, registerCollabUpgrade } from './collab.js';
import { registerCors } from './cors.js';
import { MergedOpenApi, registerDocs } from './docs.js';
import { HTTP_SERVICES, registerHealthRoutes } from './health.js';
import { IdentityTokens } from './identity-forwarding.js';
import { DEFAULT_PROXY_TIMEOUTS, type ProxyTimeouts, registerProxy } from './proxy.js';
import { RateLimiter } from './rate-limit.js';
import { DEFAULT_REPLICA_OPTIONS, type ReplicaOptions, Replicas } from './replicas.js';
import { loadGatewaySettings } from './settings.js';
import { type AwaitingTokenOptions, DEFAULT_AWAITING_TOKEN } from './upgrades-awaiting-token.js';
import { contentSecurityPolicy } from './web-app/content-security-policy.js';
import { LinkPreviews } from './web-app/link-previews.js';
import { registerWebApp } from './web-app/web-app.js';

export interface GatewayDeps {
  /** Rate-limit counters (shared by every replica) and the readiness check. */
  redis: Redis;
  /** Services whose readiness `/actuator/health` reports (default GATEWAY_SERVICES, settings.ts). */
  expectedServices?: ServiceName[];
  /**
   * Fastify's `trustProxy`: set it when a load balancer sits in front, so that rate limits count
   * the client's IP from X-Forwarded-For instead of the balancer's (default false).
   */
  trustProxy?: FastifyServerOptions['trustProxy'];
  logLevel?: string;
  proxyTimeouts?: ProxyTimeouts;
  /** Prefix of the rate-limit keys in Redis (default `<EVENTS_PREFIX>:gateway:rate:`). */
  rateLimitPrefix?: string;
  /** Readiness checks of services with several replicas (default every 2 s). */
  replicaOptions?: Partial<ReplicaOptions>;
  /** Collab upgrades without a token from an address over its guessing budget (default 4 per address, 10 s). */
  awaitingToken?: Partial<AwaitingTokenOptions>;
}

/**
 * The gateway (ARCHITECTURE 2): authenticates every request, finds or creates the local user,
 * applies rate limits, and proxies `/api/v1/**` to the services with a signed `x-wiki-identity`;
 * also the system health, the merged API documentation, and the browser app with what its
 * sign-in needs (ARCHITECTURE 5.17).
 */
export async function buildApp(config: Config, deps: GatewayDeps): Promise<FastifyInstance> {
  const settings = loadGatewaySettings(config.env);
  const app = await createApp({
    service: 'gateway',
    env: config.env,
    logLevel: deps.logLevel ?? config.logLevel,
    // Proxied bodies stream through untouched: their size is the services' business.
    drainOversizedUpTo: 0,
    // A client's traceparent is not taken: it could pick trace ids or force sampling. Every
    // request starts a trace here; services get the gateway's span as parent (identity-forwarding).
    trustTraceparent: false,
    fastify: { trustProxy: deps.trustProxy ?? false },
  });

  const replicas = new Replicas(config, { ...DEFAULT_REPLICA_OPTIONS, ...deps.replicaOptions, log: app.log });
  replicas.start(SERVICE_NAMES);
  app.addHook('onClose', async () => replicas.stop());

  // The gateway's own calls (resolving users and MCP keys) also go to a ready replica. The client
  // is given that pick as each service's one URL, without the lists, so it does not rotate again.
  const peers = createServiceClient({
    service: 'gateway',
    config: { urls: replicaUrls(replicas), internalTokenSecret: config.internalTokenSecret },
    logger: app.log,
  });
  const verifier = createTokenVerifier(await providerFor(settings.auth, config.dataDir));
  const localUsers = new LocalUsers(peers, { emailVerifiedDefault: settings.auth.emailVerifiedDefault });
  // Before the gatekeeper: a CORS preflight carries no credential.
  registerCors(app, settings.corsOrigins);
  const rateLimiter = new RateLimiter(deps.redis, {
    ...settings.rateLimit,
    keyPrefix: deps.rateLimitPrefix ?? `${config.eventsPrefix}:gateway:rate:`,
  });
  const guessingBudget = new GuessingBudget(rateLimiter);
  registerGatekeeper(app, {
    verifier,
    localUsers,
    mcpKeys: new McpKeys(peers),
    identityTokens: new IdentityTokens(config.internalTokenSecret),
    rateLimiter,
    guessingBudget,
    internalApiKey: config.internalApiKey,
  });

  registerHealthRoutes(app, replicas, deps.redis, deps.expectedServices ?? settings.services);
  const production = isProduction(config.env);
  await registerDocs(
    app,
    new MergedOpenApi(replicaUrls(replicas), HTTP_SERVICES, app.log, browserSignInOpenApi(settings.auth, production)),
  );
  registerBrowserSignIn(app, { auth: settings.auth, dataDir: config.dataDir, production });
  registerCollabIdentity(app, { verifier, localUsers, rateLimiter, guessingBudget });
  registerCollabUpgrade(app, {
    corsOrigins: settings.corsOrigins,
    verifier,
    replicas,
    rateLimiter,
    guessingBudget,
    trustProxy: deps.trustProxy ?? false,
    awaitingToken: { ...DEFAULT_AWAITING_TOKEN, ...deps.awaitingToken },
  });
  await registerProxy(app, replicas, deps.proxyTimeouts ?? DEFAULT_PROXY_TIMEOUTS);
  await registerWebApp(app, {
    webDir: settings.webDir,
    policyFor: (scriptHashes) => contentSecurityPolicy(settings.auth, scriptHashes),
    previews: new LinkPreviews(peers),
  });
  return app;
}

/** A service URL table whose every read picks a replica (read per call, as the clients do). */
function replicaUrls(replicas: Replicas): Record<ServiceName, string> {
  const urls = {} as Record<ServiceName, string>;
  for (const service of SERVICE_NAMES) {
    Object.defineProperty(urls, service, { enumerable: true, get: () => replicas.pick(service) });
  }
  return urls;
}
