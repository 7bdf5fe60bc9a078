import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@wiki/testing';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A route handler of a fake service; return false to fall through to the echo. */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export interface FakeService {
  url: string;
  requests: RecordedRequest[];
  /** Adds a handler tried before the echo. */
  on(handler: FakeHandler): void;
  close(): Promise<void>;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return true;
}

/**
 * A stand-in for a service that is not written yet: answers `/health/ready` and, for anything
 * else without a handler, echoes what it received (method, url, headers, body) so tests can
 * see exactly what the gateway forwarded.
 */
export async function startFakeService(name: string): Promise<FakeService> {
  const handlers: FakeHandler[] = [];
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      for (const handler of handlers) if (await handler(req, res)) return;
      if (req.url === '/health/ready') return void sendJson(res, 200, { status: 'UP', checks: {} });
      const body = await readBody(req);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      sendJson(res, 200, {
        success: true,
        data: { service: name, method: req.method, url: req.url, headers: req.headers, body },
      });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
    }
  });
  // keep-alive sockets would hold close() up
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    on: (handler) => void handlers.unshift(handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL where nothing listens (a port that was just free). */
export async function closedUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
