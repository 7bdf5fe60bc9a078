import { startService as startGateway } from '@wiki/gateway';
import { type Stack, type StartPart, startStack } from '@wiki/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService as startAttachment } from '../../services/attachment/src/service.js';
import { startService as startComment } from '../../services/comment/src/service.js';
import { startService as startDocument } from '../../services/document/src/service.js';
import { startService as startExport } from '../../services/export/src/service.js';
import { startService as startMcp } from '../../services/mcp/src/service.js';
import { startService as startNotification } from '../../services/notification/src/service.js';
import { startService as startSearch } from '../../services/search/src/service.js';
import { startService as startWorkspace } from '../../services/workspace/src/service.js';
import { bodyFor, encodeText, type IdPool, idKind, pathValue, queryFor } from './arbitraries.js';
import { type FuzzRoute, routesOf, type Schema } from './routes.js';
import { buildWorld, type World } from './world.js';

/**
 * Issue 11, point 9: every route of the gateway's OpenAPI document, driven with generated and
 * malformed bodies, query strings and path ids as a signed-in ADMIN of a real workspace. No answer
 * may be a 5xx, and every request must be answered within HANG_MS (a hang detector, not a speed
 * test). `npm test` runs a bounded number with a fixed seed; `npm run fuzz` runs many (FUZZ_RUNS,
 * FUZZ_SEED). A failure prints the seed and the request, which replays it.
 */
const RUNS = Number(process.env.FUZZ_RUNS || 600);
const SEED = Number(process.env.FUZZ_SEED || 20_261_125);
const HANG_MS = 15_000;

let stack: Stack;
let world: World;
let openapi: Schema;
let routes: FuzzRoute[];

beforeAll(async () => {
  stack = await startStack({
    gateway: startGateway,
    services: {
      workspace: startWorkspace as StartPart,
      document: startDocument as StartPart,
      comment: startComment as StartPart,
      search: startSearch as StartPart,
      attachment: startAttachment as StartPart,
      notification: startNotification as StartPart,
      export: startExport as StartPart,
      mcp: startMcp as StartPart,
    },
  });
  world = await buildWorld(stack);
  const docs = await stack.request('GET', '/api/v1/openapi.json', { token: world.bob.token });
  expect(docs.status).toBe(200);
  openapi = docs.body;
  routes = routesOf(openapi);
});
afterAll(() => stack?.stop());

/**
 * A body as sent. fast-check prints a failing request; a 3 MB body or 20,000 nested brackets would
 * bury the report, so it prints as its size and first characters.
 */
class WireBody {
  constructor(readonly payload: string | Uint8Array) {}
  [fc.toStringMethod](): string {
    if (typeof this.payload !== 'string') return `bytes(${Buffer.from(this.payload).toString('hex').slice(0, 200)})`;
    const head = JSON.stringify(this.payload.slice(0, 200));
    return this.payload.length > 200 ? `${this.payload.length} chars: ${head}…` : head;
  }
}

interface FuzzRequest {
  method: string;
  url: string;
  credential: FuzzRoute['credential'];
  contentType?: string;
  body?: WireBody;
}

function requestFor(route: FuzzRoute, ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const segments = route.path.split('/');
  const params = route.pathParams.map((name) => {
    const before = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
    return pathValue(ids, idKind(name, before)).map((value) => [name, value] as const);
  });
  return fc
    .record({
      params: fc.tuple(...params),
      query: queryFor(openapi, route, ids),
      body: bodyFor(openapi, route, ids),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain'),
    })
    .map(({ params: values, query, body, contentType }) => {
      let path = route.path;
      for (const [name, value] of values) {
        path = path.replace(`{${name}}`, 'raw' in value ? value.raw : encodeText(value.text));
      }
      return {
        method: route.method,
        url: `${path}${query}`,
        credential: route.credential,
        ...(body === undefined ? {} : { body: new WireBody(body), contentType }),
      };
    });
}

/** What a failure prints: enough to replay the request by hand. */
function describeRequest(request: FuzzRequest): string {
  const body = request.body ? ` body ${request.body[fc.toStringMethod]()}` : '';
  return `${request.method} ${request.url.slice(0, 300)} [${request.credential}]${body}`;
}

async function send(request: FuzzRequest): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (request.credential === 'bearer') headers.authorization = `Bearer ${world.bob.token}`;
  if (request.credential === 'internal') headers['x-internal-api-key'] = stack.config.internalApiKey;
  if (request.credential === 'mcp') {
    headers['x-mcp-api-key'] = world.mcpKey;
    // What an MCP client accepts; without it the transport answers 406 before reading the body.
    headers.accept = 'application/json, text/event-stream';
  }
  if (request.contentType) headers['content-type'] = request.contentType;
  const res = await fetch(`${stack.gatewayUrl}${request.url}`, {
    method: request.method,
    headers,
    body: request.body?.payload,
    signal: AbortSignal.timeout(HANG_MS),
  });
  // An event stream that was opened never ends by itself: its status is the answer.
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  return { status: res.status, text: await res.text() };
}

it(
  `answers every generated request to every route without a 5xx or a hang (${RUNS} runs, seed ${SEED})`,
  async () => {
    // The routes come from what the services register: every service's prefixes must be there.
    const paths = routes.map((r) => r.path);
    for (const prefix of [
      '/api/v1/workspaces',
      '/api/v1/documents',
      '/api/v1/comments',
      '/api/v1/documents/search',
      '/api/v1/attachments',
      '/api/v1/notifications',
      '/api/v1/documents/{id}/export',
      '/api/v1/mcp',
    ]) {
      expect(
        paths.some((p) => p.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(routes.length).toBeGreaterThan(30);

    const statuses = new Map<number, number>();
    const anyRequest = fc.constantFrom(...routes).chain((route) => requestFor(route, world.ids));
    await fc.assert(
      fc.asyncProperty(anyRequest, async (request) => {
        let answer: { status: number; text: string };
        try {
          answer = await send(request);
        } catch (error) {
          throw new Error(`no answer (${(error as Error).message}) to ${describeRequest(request)}`);
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 500) {
          throw new Error(`${answer.status} ${answer.text.slice(0, 300)} for ${describeRequest(request)}`);
        }
        if (request.method !== 'GET' && answer.status < 300) await world.heal();
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.info(`fuzz: ${RUNS} runs, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // Requests reached the handlers: some were accepted, and some refused by validation.
    const count = (from: number, to: number) =>
      [...statuses].filter(([status]) => status >= from && status < to).reduce((n, [, c]) => n + c, 0);
    expect(count(200, 300), JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(count(400, 401), JSON.stringify([...statuses])).toBeGreaterThan(0);
  },
  Math.max(120_000, RUNS * 1_000),
);
