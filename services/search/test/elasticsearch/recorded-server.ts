import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an Elasticsearch 9 node on loopback (port 0) that the real
 * `@elastic/elasticsearch` client talks to over HTTP. It records every request (method, path,
 * query string, headers, body: JSON or the NDJSON lines of a bulk request) and answers each from
 * the first matching route, with a recorded answer (fixtures/*.json, written from the response
 * shapes of the Elasticsearch reference). Answers carry the `x-elastic-product: Elasticsearch`
 * header the client insists on. A request no route expects is answered 400 and kept in
 * `unexpected`, so a test can fail on it.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: string;
  /** The parsed JSON body, or the parsed lines of an NDJSON body; undefined when empty. */
  body: any;
  lines: any[];
}

export interface Answer {
  status: number;
  body?: unknown;
}

export type Responder = (request: RecordedRequest) => Answer;

interface Route {
  method: string;
  path: RegExp;
  respond: Responder;
  /** Answers this many requests, then stops matching (undefined: forever). */
  times?: number;
}

export interface RecordedElasticsearch {
  url: string;
  requests: RecordedRequest[];
  unexpected: RecordedRequest[];
  /** Adds a route; routes added later win over earlier ones for the same request. */
  on(method: string, path: RegExp, respond: Responder | Answer, times?: number): void;
  /** The recorded requests to one method and path pattern. */
  sent(method: string, path: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

const fixturesDir = new URL('./fixtures/', import.meta.url);

/** A recorded answer body, with `{{name}}` placeholders filled in. */
export function fixture(name: string, values: Record<string, string> = {}): any {
  const text = readFileSync(new URL(`${name}.json`, fixturesDir), 'utf8');
  return JSON.parse(text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? `{{${key}}}`));
}

function parseBody(raw: string, contentType: string): { body: any; lines: any[] } {
  if (raw === '') return { body: undefined, lines: [] };
  if (contentType.includes('x-ndjson')) {
    const lines = raw
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    return { body: undefined, lines };
  }
  return { body: JSON.parse(raw), lines: [] };
}

export async function startRecordedElasticsearch(): Promise<RecordedElasticsearch> {
  const routes: Route[] = [];
  const requests: RecordedRequest[] = [];
  const unexpected: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = Buffer.concat(chunks).toString('utf8');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: decodeURIComponent(url.pathname),
        query: url.searchParams,
        headers: req.headers,
        raw,
        ...parseBody(raw, String(req.headers['content-type'] ?? '')),
      };
      requests.push(request);
      const route = [...routes]
        .reverse()
        .find((r) => r.method === request.method && r.path.test(request.path) && (r.times ?? 1) > 0);
      let answer: Answer;
      if (route) {
        if (route.times !== undefined) route.times -= 1;
        answer = route.respond(request);
      } else {
        unexpected.push(request);
        answer = {
          status: 400,
          body: fixture('error-unexpected-request', { method: request.method, path: request.path }),
        };
      }
      const headers: Record<string, string> = { 'x-elastic-product': 'Elasticsearch' };
      if (answer.body !== undefined && request.method !== 'HEAD') {
        headers['content-type'] = 'application/vnd.elasticsearch+json;compatible-with=9';
      }
      res.writeHead(answer.status, headers);
      res.end(answer.body !== undefined && request.method !== 'HEAD' ? JSON.stringify(answer.body) : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unexpected,
    on(method, path, respond, times) {
      routes.push({ method, path, respond: typeof respond === 'function' ? respond : () => respond, times });
    },
    sent(method, path) {
      return requests.filter((r) => r.method === method && path.test(r.path));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
