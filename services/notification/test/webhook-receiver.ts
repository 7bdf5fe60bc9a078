import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status this receiver answered. */
  answered: number;
}

/**
 * A real HTTP receiver on loopback: each path answers what its rule says for its n-th request
 * (1-based; 200 for a path without a rule), and every request is kept. A 3xx names
 * `<path>/elsewhere` as its Location.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly rules = new Map<string, (n: number) => number>();
  private readonly counts = new Map<string, number>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const n = (this.counts.get(path) ?? 0) + 1;
        this.counts.set(path, n);
        const answered = this.rules.get(path)?.(n) ?? 200;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
        // A 3xx points elsewhere on this receiver: a sender that followed it would show up there.
        const location = answered >= 300 && answered < 400 ? { location: `${path}/elsewhere` } : {};
        res.writeHead(answered, { 'content-type': 'text/plain', ...location }).end('x'.repeat(10_000));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** What `path` answers to its n-th request. */
  rule(path: string, answer: (n: number) => number): string {
    this.rules.set(path, answer);
    return `${this.url}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

/** What a receiver does with Wiki-Signature: recompute the HMAC of "<t>.<raw body>" and refuse old times. */
export function verifySignature(secret: string, header: string, body: string, maxAgeS = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > maxAgeS || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
