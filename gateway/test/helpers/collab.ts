import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A stand-in collaboration server: accepts every WebSocket upgrade, remembers its URL and headers,
 * and echoes what the client sends on the socket.
 */
export async function startFakeCollab() {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket: Socket) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Fake: collab\r\n\r\n',
    );
    socket.on('data', (data) => socket.write(data));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

export interface Upgraded {
  status: number;
  headers: IncomingHttpHeaders;
  /** The upgraded socket (101 only); the caller ends it. */
  socket?: Socket;
}

/** A WebSocket upgrade request to `base + path`: the 101 with its socket, or the HTTP answer. */
export function upgrade(base: string, path: string, headers: Record<string, string> = {}): Promise<Upgraded> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}
