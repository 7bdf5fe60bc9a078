import { eventually, type Stack } from '@wiki/testing';
import fc from 'fast-check';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HTTP_SERVICES } from '../http-services.js';
import { startPlatform } from '../platform.js';
import { bodyFor, encodeText, headersFor, type IdPool, idKind, pathValue, queryFor } from './arbitraries.js';
import { HeldStreams } from './held-streams.js';
import { type FuzzRoute, routesOf, type Schema } from './routes.js';
import { buildWorld, type World } from './world.js';

/**
 * Issue 11, point 9: every route of the gateway's OpenAPI document, driven with generated and
 * malformed bodies, query strings, path ids and route headers as a signed-in ADMIN of a real
 * workspace. No answer may be a 5xx, and every request must be answered within HANG_MS (a hang
 * detector, not a speed test). `npm test` runs a bounded number with a fixed seed; `npm run fuzz`
 * runs many (FUZZ_RUNS, FUZZ_SEED). A failure prints the seed and the request, which replays it.
 * Issue 24, point 9: event streams too, resumed from generated ids and held open past the
 * per-user limits (HeldStreams).
 */
const RUNS = Number(process.env.FUZZ_RUNS || 600);
const SEED = Number(process.env.FUZZ_SEED || 20_261_125);
const HANG_MS = 15_000;
/** Event streams of one route held open at once: more than the 10 per user (or MCP key) allowed. */
const HELD_STREAMS_PER_ROUTE = 12;
const NOTIFICATION_STREAM = '/api/v1/notifications/stream';

let stack: Stack;
let world: World;
let openapi: Schema;
let routes: FuzzRoute[];
const held = new HeldStreams(HELD_STREAMS_PER_ROUTE);
/**
 * The fuzzer's own connections, destroyed before the stack stops: a connection the client opened
 * for a request it then cancelled, and never used, would hold the gateway's graceful close.
 */
const fuzzConnections = new Agent();

beforeAll(async () => {
  stack = await startPlatform(HTTP_SERVICES);
  world = await buildWorld(stack);
  const docs = await stack.request('GET', '/api/v1/openapi.json', { token: world.bob.token });
  expect(docs.status).toBe(200);
  openapi = docs.body;
  routes = routesOf(openapi);
});
afterAll(async () => {
  await held.releaseAll();
  await fuzzConnections.destroy();
  await stack?.stop();
});

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
  /** The route's OpenAPI template, for the per-route tally. */
  route: string;
  url: string;
  credential: FuzzRoute['credential'];
  /** The route's own headers (`last-event-id`). */
  headers: Record<string, string>;
  /** What an EventSource sends, a JSON client, or nothing. */
  accept?: string;
  /** An event stream it opens is kept open for a while (HeldStreams), not cancelled at once. */
  hold: boolean;
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
      headers: headersFor(openapi, route, ids),
      // An MCP client's Accept is fixed (send), so that the transport reads the body.
      accept:
        route.credential === 'mcp'
          ? fc.constant(undefined)
          : fc.constantFrom(undefined, undefined, 'text/event-stream', 'application/json'),
      hold: fc.boolean(),
      body: bodyFor(openapi, route, ids),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain'),
    })
    .map(({ params: values, query, headers, accept, hold, body, contentType }) => {
      let path = route.path;
      for (const [name, value] of values) {
        path = path.replace(`{${name}}`, 'raw' in value ? value.raw : encodeText(value.text));
      }
      return {
        method: route.method,
        route: route.path,
        url: `${path}${query}`,
        credential: route.credential,
        headers,
        ...(accept === undefined ? {} : { accept }),
        hold,
        ...(body === undefined ? {} : { body: new WireBody(body), contentType }),
      };
    });
}

/** What a failure prints: enough to replay the request by hand. */
function describeRequest(request: FuzzRequest): string {
  const body = request.body ? ` body ${request.body[fc.toStringMethod]()}` : '';
  const headers = { ...request.headers, ...(request.accept ? { accept: request.accept } : {}) };
  const shown = Object.keys(headers).length > 0 ? ` headers ${JSON.stringify(headers).slice(0, 300)}` : '';
  return `${request.method} ${request.url.slice(0, 300)} [${request.credential}]${shown}${body}`;
}

async function send(request: FuzzRequest): Promise<{ status: number; text: string; eventStream: boolean }> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.accept) headers.accept = request.accept;
  if (request.credential === 'bearer') headers.authorization = `Bearer ${world.bob.token}`;
  if (request.credential === 'internal') headers['x-internal-api-key'] = stack.config.internalApiKey;
  if (request.credential === 'mcp') {
    headers['x-mcp-api-key'] = world.mcpKey;
    // What an MCP client accepts; without it the transport answers 406 before reading the body.
    headers.accept = 'application/json, text/event-stream';
  }
  if (request.contentType) headers['content-type'] = request.contentType;
  // The whole answer must come within HANG_MS, but for an event stream's body, which never ends.
  const hang = new AbortController();
  const timer = setTimeout(() => hang.abort(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS);
  try {
    const res = await fetch(`${stack.gatewayUrl}${request.url}`, {
      dispatcher: fuzzConnections,
      method: request.method,
      headers,
      body: request.body?.payload,
      signal: hang.signal,
    });
    // An event stream that was opened never ends by itself: its status is the answer.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      clearTimeout(timer);
      // A stream a GET opened may stay open a while, as a tab's does (a POST's is one answer).
      if (request.hold && request.method === 'GET') held.hold(res, request.route, describeRequest(request));
      else await res.body?.cancel();
      return { status: res.status, text: '', eventStream: true };
    }
    return { status: res.status, text: await res.text(), eventStream: false };
  } finally {
    clearTimeout(timer);
  }
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
    expect(paths).toContain(NOTIFICATION_STREAM);

    const statuses = new Map<number, number>();
    // Per route template, for the routes that answered with an event stream at least once.
    const byRoute = new Map<string, Map<number, number>>();
    const streamRoutes = new Set<string>();
    let resumedStreams = 0;
    const anyRequest = fc.constantFrom(...routes).chain((route) => requestFor(route, world.ids));
    await fc.assert(
      fc.asyncProperty(anyRequest, async (request) => {
        let answer: { status: number; text: string; eventStream: boolean };
        try {
          answer = await send(request);
        } catch (error) {
          throw new Error(`no answer (${(error as Error).message}) to ${describeRequest(request)}`);
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const ofRoute = byRoute.get(request.route) ?? new Map<number, number>();
        byRoute.set(request.route, ofRoute.set(answer.status, (ofRoute.get(answer.status) ?? 0) + 1));
        if (answer.eventStream) {
          streamRoutes.add(request.route);
          if ('last-event-id' in request.headers || /[?&]lastEventId=/.test(request.url)) resumedStreams++;
        }
        if (answer.status >= 500) {
          throw new Error(`${answer.status} ${answer.text.slice(0, 300)} for ${describeRequest(request)}`);
        }
        if (request.method !== 'GET' && answer.status < 300) await world.heal();
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.info(`fuzz: ${RUNS} runs, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    for (const route of [...streamRoutes].sort()) {
      console.info(
        `fuzz: ${route} statuses ${JSON.stringify(Object.fromEntries(byRoute.get(route) ?? []))}, ` +
          `held open ${held.held.get(route) ?? 0}, pushed out by a newer one ${held.pushedOut.get(route) ?? 0}`,
      );
    }
    console.info(`fuzz: event streams opened from a last event id ${resumedStreams}`);

    // The notification stream is opened, not only refused (nearly half of its requests are valid).
    const streamRequests = [...(byRoute.get(NOTIFICATION_STREAM) ?? [])].reduce((n, [, c]) => n + c, 0);
    if (streamRequests >= 20) expect(streamRoutes).toContain(NOTIFICATION_STREAM);

    // Whatever the streams went through, each held one ended cleanly, and once they are all
    // cancelled the notification service holds none: no slot or reader outlives its client.
    await held.releaseAll();
    expect(held.faults).toEqual([]);
    await eventually(async () => {
      const ready = await fetch(`${stack.serviceUrls.notification}/health/ready`, { dispatcher: fuzzConnections });
      expect(((await ready.json()) as { details?: { streams?: { open?: number } } }).details?.streams?.open).toBe(0);
    });
    // Requests reached the handlers: some were accepted, and some refused by validation.
    const count = (from: number, to: number) =>
      [...statuses].filter(([status]) => status >= from && status < to).reduce((n, [, c]) => n + c, 0);
    expect(count(200, 300), JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(count(400, 401), JSON.stringify([...statuses])).toBeGreaterThan(0);
  },
  Math.max(120_000, RUNS * 1_000),
);
