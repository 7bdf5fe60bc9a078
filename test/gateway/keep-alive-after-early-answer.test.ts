import { connect, type Socket } from 'node:net';
import { type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startPlatform } from '../platform.js';

/**
 * A keep-alive connection stays usable after a service answered an upload before reading all of
 * it. The route fuzzer (seed 7, request 2588) found `GET /actuator/health` left unanswered: the
 * request before it on the same connection was a 3.3 MB POST to a workspace path whose id is
 * 600 characters, which the workspace service refuses from its router (then a 414, now a 400
 * VALIDATION_ERROR), body unread. The gateway relayed the refusal but left the rest of that body unread on the client's connection, so
 * the next request on it was never parsed.
 *
 * Each case sends its requests on one raw connection (a client that keeps it alive, as fetch
 * does) and expects every answer; without the fix the second answer never comes and the test
 * times out.
 */
let stack: Stack;
let alice: SignedInUser;

beforeAll(async () => {
  stack = await startPlatform(['workspace']);
  alice = await signInNew(stack, 'Alice Uploader');
});
afterAll(() => stack?.stop());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One client connection that sends requests as bytes and reads the answers in order, as a
 * keep-alive HTTP/1.1 client does: the whole request (headers and body) in one write.
 */
class Connection {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  static open(url: string): Promise<Connection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  send(method: string, path: string, headers: Record<string, string>, body?: Buffer): void {
    const lines = [`${method} ${path} HTTP/1.1`, 'host: wiki.test'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body) lines.push(`content-length: ${body.length}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    this.socket.write(body ? Buffer.concat([head, body]) : head);
  }

  /** The next answer on the connection; fails if the connection closes first. */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) throw new Error('the connection closed without an answer');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = null;
    }
  }

  private parse(): RawResponse | undefined {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...fields] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const field of fields) {
      const colon = field.indexOf(':');
      headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
    }
    // Every answer here has a declared length (JSON envelopes); a chunked one would be a surprise.
    expect(headers['content-length'], statusLine).toBeDefined();
    const length = Number(headers['content-length']);
    if (this.buffered.length < end + 4 + length) return undefined;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }

  /** More bytes on the connection (the rest of a body whose head `send` wrote). */
  write(bytes: Buffer): void {
    if (!this.closed) this.socket.write(bytes);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The fuzzer's body: JSON with three 1.1 MB strings, far past what the proxy buffers (64 KiB). */
function hugeBody(): Buffer {
  const huge = 'x'.repeat(1_100_000);
  return Buffer.from(JSON.stringify({ title: huge, name: huge, content: huge }));
}

async function expectHealthyAnswer(connection: Connection): Promise<void> {
  connection.send('GET', '/actuator/health', {});
  const health = await connection.response();
  expect(health.status, health.body).toBe(200);
  expect(JSON.parse(health.body)).toMatchObject({ status: 'UP', services: { workspace: 'UP' } });
}

describe('a keep-alive connection after a service answered before reading the whole upload', () => {
  it("answers the fuzzer's next request (400 for a 600-character id with a 3.3 MB body, then /actuator/health)", async () => {
    const connection = await Connection.open(stack.gatewayUrl);
    // Also when the test times out (the failure this guards against), so the stack can stop.
    onTestFinished(() => connection.close());
    connection.send(
      'POST',
      `/api/v1/workspaces/${'x'.repeat(600)}`,
      { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      hugeBody(),
    );
    const refused = await connection.response();
    expect(refused.status, refused.body).toBe(400);

    await expectHealthyAnswer(connection);
  });

  it('answers the next request after an upload past what a service drains (40 MiB) was refused', async () => {
    const connection = await Connection.open(stack.gatewayUrl);
    onTestFinished(() => connection.close());
    // Past the services' 32 MiB drain cap, Fastify refuses the body from its declared length alone
    // and closes its connection, while the gateway is still sending: the client gets the 413, or a
    // 503 when undici sees the connection break before it has read the answer.
    connection.send(
      'POST',
      '/api/v1/workspaces',
      { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      Buffer.alloc(40 * 1024 * 1024, 0x20),
    );
    const refused = await connection.response();
    expect([413, 503], refused.body).toContain(refused.status);

    await expectHealthyAnswer(connection);
  });

  it('closes the connection instead of reading on when the rest of a refused upload is past 64 MiB', async () => {
    const connection = await Connection.open(stack.gatewayUrl);
    onTestFinished(() => connection.close());
    // Declares 100 MiB, sends 1 MiB, and sends 70 MiB more only once the refusal is in: all of
    // that is read after the answer, past the gateway's cap.
    connection.send(
      'POST',
      `/api/v1/workspaces/${'x'.repeat(600)}`,
      {
        authorization: `Bearer ${alice.token}`,
        'content-type': 'application/json',
        'content-length': String(100 * 1024 * 1024),
      },
      undefined,
    );
    connection.write(Buffer.alloc(1024 * 1024, 0x20));
    const refused = await connection.response();
    expect(refused.status, refused.body).toBe(400);
    for (let i = 0; i < 70; i++) connection.write(Buffer.alloc(1024 * 1024, 0x20));
    // Without the cap the gateway would wait for the last 29 MiB and this would never settle.
    await expect(connection.response()).rejects.toThrow('closed without an answer');
  });
});
