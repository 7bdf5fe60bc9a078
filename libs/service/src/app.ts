// Brings in the route-schema fields of the OpenAPI description (tags, summary, hide, security).
import type {} from '@fastify/swagger';
import { identity } from '@wiki/auth';
import type { Config, ServiceName } from '@wiki/config';
import { type DatabasePool, sql } from '@wiki/db';
import { createApp, errorEnvelope, errorResponse, type HealthCheck, registerHealth } from '@wiki/http';
import { createServiceClient, type ServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';

/** What every service's `buildApp` takes besides its own dependencies. */
export interface ServiceAppDeps {
  /** The kit's pool (transactions with events wake the relay), or a plain one in tests. */
  pool: DatabasePool;
  /** Readiness checks: the kit's (database, NATS); by default the database alone. */
  checks?: Record<string, HealthCheck>;
  logLevel?: string;
}

/** The same for a service without a database (mcp): its readiness checks are the kit's (NATS). */
export interface DatabaselessAppDeps {
  checks: Record<string, HealthCheck>;
  logLevel?: string;
}

export interface ServiceAppOptions {
  service: ServiceName;
  openapi: { title: string; description?: string };
  /** Largest JSON body (libs/http's default: 1 MiB). */
  bodyLimit?: number;
}

const ping = sql.unsafe`SELECT 1`;

/**
 * The start of every service's app: Fastify from libs/http (request ids, logs, error envelope,
 * OpenAPI), the `identity` plugin that verifies `x-wiki-identity`, the health routes, and the one
 * client this service calls its peers with. The service then adds its routes.
 */
export async function createServiceApp(
  config: Config,
  deps: ServiceAppDeps | DatabaselessAppDeps,
  options: ServiceAppOptions,
): Promise<{ app: FastifyInstance; peers: ServiceClient }> {
  const app = await createApp({
    service: options.service,
    env: config.env,
    logLevel: deps.logLevel ?? config.logLevel,
    bodyLimit: options.bodyLimit,
    openapi: options.openapi,
  });
  // The outage 503 comes from a database or queue of the service's own: only where it has one.
  if ('pool' in deps) describeOutages(app);
  await app.register(identity, { secret: config.internalTokenSecret });
  registerHealth(app, 'pool' in deps ? (deps.checks ?? { database: () => deps.pool.query(ping) }) : deps.checks);
  const peers = createServiceClient({ service: options.service, config, logger: app.log });
  return { app, peers };
}

/**
 * Every route of a service touches its database (its own rows, or the membership and
 * users projections behind the access check), so each one can meet an outage: its OpenAPI
 * description lists the 503 (with Retry-After) the error handler then answers, also where the route
 * lists the bare envelope for its own 503s. Hidden routes (health, openapi.json) are left alone.
 */
function describeOutages(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { hide?: boolean; response?: Record<string, unknown> };
    if (schema.hide) return;
    const listed = schema.response?.['503'];
    if (listed !== undefined && listed !== errorEnvelope) return;
    route.schema = { ...schema, response: { ...schema.response, 503: OUTAGE_RESPONSE } };
  });
}

/** The envelope, described with its code and the Retry-After header. */
const OUTAGE_RESPONSE = errorResponse('SERVICE_UNAVAILABLE');
