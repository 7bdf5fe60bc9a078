import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createApp } from './app.js';
import { markShuttingDown, registerHealth } from './health.js';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** A GET on `agent` (keep-alive: connections are reused unless an answer says close). */
function get(base: string, path: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// The HTTP half of a graceful stop, as the service runner does it: readiness off, then (after
// SHUTDOWN_DELAY_MS) close, which lets the requests in flight finish.
describe('a graceful stop of an app', () => {
  let app: FastifyInstance;
  let base: string;
  let release: (() => void) | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  beforeAll(async () => {
    app = await createApp({ service: 'drain-test', logLevel: 'silent' });
    registerHealth(app, {});
    app.get('/fast', async () => ({ ok: true }));
    app.get('/slow', () => new Promise((resolve) => (release = () => resolve({ ok: 'slow' }))));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it('keeps serving while readiness is off, closing each connection after its answer, and finishes what is in flight', async () => {
    const before = await get(base, '/fast', agent);
    expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });

    const slow = get(base, '/slow', agent);
    await vi.waitFor(() => expect(release).toBeDefined());
    markShuttingDown(app);

    // Not ready any more, but still serving: the gateway learns it is leaving from the answer.
    const ready = await get(base, '/health/ready', agent);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body).checks.accepting).toBe('DOWN');
    expect(await get(base, '/fast', agent)).toMatchObject({ status: 200, connection: 'close' });

    const closed = app.close();
    // The request in flight when the stop began still gets its whole answer.
    release?.();
    expect(await slow).toMatchObject({ status: 200, body: '{"ok":"slow"}' });
    await closed;
    // Then nothing listens any more: a new connection is refused (the gateway retries those elsewhere).
    await expect(get(base, '/fast', new Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
