import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SingleFlight } from '@wiki/cache';
import type { ServiceName } from '@wiki/config';
import { type ErrorCode, errorResponse } from '@wiki/http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are free-form JSON read from peers
type Json = Record<string, any>;

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  paths: Record<string, Json>;
  components: Record<string, Json>;
  tags: Array<{ name: string; description?: string }>;
  security?: Json[];
}

const FETCH_TIMEOUT_MS = 2_000;
/** A complete merge is kept this long; one that missed a service is retried sooner. */
const FRESH_MS = 30_000;
const PARTIAL_MS = 5_000;

/** What the gateway itself serves besides the proxied routes (`ownPaths`: its other routes, e.g. sign-in). */
function gatewayDocument(ownPaths: Record<string, Json> = {}): OpenApiDocument {
  const status = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['UP', 'DOWN'] },
      services: { type: 'object', additionalProperties: { type: 'string', enum: ['UP', 'DOWN'] } },
      redis: { type: 'string', enum: ['UP', 'DOWN'] },
    },
  };
  return {
    openapi: '3.0.3',
    info: {
      title: 'Wiki API',
      version: '1.0.0',
      description: 'Every service behind the gateway, in one document. Paths are relative to the gateway.',
    },
    paths: {
      '/actuator/health': {
        get: {
          tags: ['health'],
          summary: 'Health of the whole system',
          security: [],
          responses: {
            200: { description: 'Every service is up', content: { 'application/json': { schema: status } } },
            503: { description: 'Something is down', content: { 'application/json': { schema: status } } },
          },
        },
      },
      ...ownPaths,
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        internalApiKey: { type: 'apiKey', in: 'header', name: 'X-Internal-Api-Key' },
        mcpApiKey: { type: 'apiKey', in: 'header', name: 'X-Mcp-Api-Key' },
      },
    },
    tags: [{ name: 'health' }, { name: 'sign-in', description: 'What the web app needs to sign people in' }],
    security: [{ bearer: [] }],
  };
}

/**
 * Adds one service's document to the merged one. Only public API paths are taken (a service's
 * own `/internal/...` and health routes are not reachable through the gateway); on a name
 * clash the first service's definition stays.
 */
export function mergeInto(target: OpenApiDocument, source: Json): void {
  for (const [path, item] of Object.entries((source.paths ?? {}) as Record<string, Json>)) {
    if (!path.startsWith('/api/v1/')) continue;
    target.paths[path] = { ...withRateLimit(item), ...target.paths[path] };
  }
  for (const [section, entries] of Object.entries((source.components ?? {}) as Record<string, Json>)) {
    target.components[section] = { ...entries, ...target.components[section] };
  }
  for (const tag of (source.tags ?? []) as OpenApiDocument['tags']) {
    if (!target.tags.some((t) => t.name === tag.name)) target.tags.push(tag);
  }
}

/** An error code's envelope as an OpenAPI response: described with its code, with Retry-After where it has one. */
export function openApiErrorResponse(code: ErrorCode): Json {
  const { description, headers, ...schema } = JSON.parse(JSON.stringify(errorResponse(code))) as Json;
  const retryAfter = headers?.['retry-after'];
  return {
    description,
    ...(retryAfter
      ? { headers: { 'Retry-After': { description: retryAfter.description, schema: { type: retryAfter.type } } } }
      : {}),
    content: { 'application/json': { schema } },
  };
}

/** The gateway's 429 as an OpenAPI response: the envelope, described with its code, and Retry-After. */
const RATE_LIMITED_RESPONSE = openApiErrorResponse('RATE_LIMITED');

/**
 * The path's operations with the gateway's own 429: the gateway limits every request but the
 * collaboration server's (gatekeeper.ts), whatever the service behind it declares.
 */
function withRateLimit(item: Json): Json {
  const operations = Object.entries(item).map(([method, operation]: [string, Json]) => {
    const internalOnly = operation.security?.length && operation.security.every((s: Json) => 'internalApiKey' in s);
    if (internalOnly || !operation.responses || operation.responses['429']) return [method, operation];
    return [method, { ...operation, responses: { ...operation.responses, 429: RATE_LIMITED_RESPONSE } }];
  });
  return Object.fromEntries(operations);
}

/**
 * The OpenAPI document of the whole API, merged from each service's `GET /openapi.json`,
 * fetched when first asked for and cached briefly. Services that do not answer are skipped.
 */
export class MergedOpenApi {
  private cached: { doc: OpenApiDocument; until: number } | undefined;
  private readonly refresh = new SingleFlight<OpenApiDocument>();

  constructor(
    /** Where each service is (read per fetch: a replica is picked, URLs may change in tests). */
    private readonly urls: Record<ServiceName, string>,
    private readonly services: ServiceName[],
    private readonly log: FastifyBaseLogger,
    /** The gateway's own routes besides health (browser sign-in), described as OpenAPI paths. */
    private readonly ownPaths: Record<string, Json> = {},
  ) {}

  async current(): Promise<OpenApiDocument> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.doc;
    return this.refresh.run('doc', async () => {
      const doc = gatewayDocument(this.ownPaths);
      const fetched = await Promise.all(this.services.map((service) => this.fetchOne(service)));
      for (const source of fetched) if (source) mergeInto(doc, source);
      const complete = fetched.every(Boolean);
      this.cached = { doc, until: Date.now() + (complete ? FRESH_MS : PARTIAL_MS) };
      return doc;
    });
  }

  /** The last merged document (for synchronous readers; `current()` refreshes it). */
  latest(): OpenApiDocument {
    return this.cached?.doc ?? gatewayDocument(this.ownPaths);
  }

  private async fetchOne(service: ServiceName): Promise<Json | undefined> {
    try {
      const response = await fetch(`${this.urls[service]}/openapi.json`, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      return (await response.json()) as Json;
    } catch (error) {
      this.log.debug({ service, err: (error as Error).message }, 'no OpenAPI document from service');
      return undefined;
    }
  }
}

/** Where the interactive documentation is served (both are public). */
export const DOCS_PREFIXES = ['/docs-ui', '/api/v1/docs-ui'];

/** `/api/v1/openapi.json` and the Swagger UI at each of DOCS_PREFIXES, all showing the merged document. */
export async function registerDocs(app: FastifyInstance, merged: MergedOpenApi): Promise<void> {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => merged.current());

  for (const routePrefix of DOCS_PREFIXES) {
    // One scope per prefix: each UI needs its own (empty) @fastify/swagger instance to hang on.
    await app.register(async (scope) => {
      await scope.register(swagger, { openapi: { openapi: '3.0.3', info: { title: 'Wiki API', version: '1.0.0' } } });
      await scope.register(swaggerUi, {
        routePrefix,
        // The UI reads `./json`; make sure the merged document is fresh before it is served.
        uiHooks: {
          onRequest: async (request) => {
            if (request.url.split('?')[0].endsWith('/json') || request.url.split('?')[0].endsWith('/yaml'))
              await merged.current();
          },
        },
        transformSpecification: () => merged.latest() as unknown as Record<string, unknown>,
        transformSpecificationClone: false,
      });
    });
  }
}
