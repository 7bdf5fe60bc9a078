import { request as httpRequest } from 'node:http';

/**
 * The notification stream as a browser's EventSource holds it: when the server ends it (a replica
 * stopping says `event: reconnect` with a short `retry`) or the connection breaks, it opens it
 * again after the retry delay with the last id it saw (Last-Event-ID), so nothing is missed. It
 * counts each notification id of one type it receives, and how many came twice.
 */
export class ReconnectingStream {
  readonly notifications = new Set<string>();
  doubled = 0;
  reconnects = 0;
  readonly opened: Promise<void>;
  private lastEventId: string | undefined;
  private retryMs = 3000;
  private closed = false;
  private current: { destroy(): void } | undefined;
  private markOpened: () => void = () => undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
    /** The notification type counted (the rolling restart counts mentions). */
    private readonly type = 'COMMENT_MENTION',
  ) {
    this.opened = new Promise((done) => {
      this.markOpened = done;
    });
    this.connect();
  }

  close(): void {
    this.closed = true;
    this.current?.destroy();
  }

  private connect(): void {
    if (this.closed) return;
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' };
    if (this.lastEventId !== undefined) headers['last-event-id'] = this.lastEventId;
    let again = false;
    const reconnect = () => {
      if (again || this.closed) return;
      again = true;
      this.reconnects++;
      setTimeout(() => this.connect(), this.retryMs).unref();
    };
    const req = httpRequest(this.url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reconnect();
        return;
      }
      this.markOpened();
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          this.handle(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      });
      res.on('end', reconnect);
      res.on('error', reconnect);
      res.on('close', reconnect);
    });
    req.on('error', reconnect);
    req.end();
    this.current = req;
  }

  private handle(block: string): void {
    let id: string | undefined;
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon === 0) continue; // a comment (heartbeat)
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data = value;
      else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    }
    if (id !== undefined) this.lastEventId = id;
    if (event !== 'notification') return;
    const notification = JSON.parse(data) as { id: string; type: string };
    if (notification.type !== this.type) return;
    if (this.notifications.has(notification.id)) this.doubled++;
    else this.notifications.add(notification.id);
  }
}
