import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One Server-Sent Event as a client sees it (a comment line is kept as `comment`). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  /** The reconnection delay the server asked for (`retry:`), in ms. */
  retry?: number;
  comment?: string;
}

/**
 * A minimal EventSource for tests: reads a `text/event-stream` response with fetch, parses its
 * events as the HTML standard says (fields per line, a blank line ends an event) and lets a test
 * wait for the next event that matches. It never reconnects by itself: a test reconnects by hand,
 * with the Last-Event-ID it chooses.
 */
export class SseStream {
  readonly events: SseEvent[] = [];
  private readonly waiters: Array<{ from: number; match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> =
    [];
  private endWaiters: Array<() => void> = [];
  ended = false;

  private constructor(private readonly res: IncomingMessage) {
    void this.read(res);
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.res.headers;
  }

  /**
   * Opens the stream on a connection of its own (no keep-alive pool), so that close() really
   * drops the connection, as a browser tab that goes away does.
   */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
        if (!(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => reject(new Error(`not an event stream: ${res.statusCode} ${text}`)));
          return;
        }
        resolve(new SseStream(res));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Events (not comments) of this name seen so far. */
  named(event: string): SseEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  /**
   * The first event from index `from` on (default: any seen so far or later) that matches. The
   * test's own timeout bounds the wait.
   */
  next(match: (e: SseEvent) => boolean, from = 0): Promise<SseEvent> {
    const seen = this.events.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ from, match, resolve }));
  }

  /** The next `unread-count` event whose count is `n`, seen from index `from` on. */
  async count(n: number, from = 0): Promise<SseEvent> {
    return this.next((e) => e.event === 'unread-count' && JSON.parse(e.data ?? '{}').unreadCount === n, from);
  }

  /** Resolves when the server has ended the stream. */
  endedByServer(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  close(): void {
    this.res.destroy();
  }

  private async read(body: IncomingMessage): Promise<void> {
    body.setEncoding('utf8');
    let buffer = '';
    let current: SseEvent = {};
    try {
      for await (const chunk of body as AsyncIterable<string>) {
        buffer += chunk;
        let newline = buffer.indexOf('\n');
        while (newline !== -1) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (Object.keys(current).length > 0) this.push(current);
            current = {};
          } else if (line.startsWith(':')) {
            this.push({ comment: line.slice(1).trim() });
          } else {
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id' || field === 'event') current[field] = value;
            else if (field === 'retry' && /^\d+$/.test(value)) current.retry = Number(value);
            else if (field === 'data') current.data = current.data === undefined ? value : `${current.data}\n${value}`;
          }
          newline = buffer.indexOf('\n');
        }
      }
    } catch {
      // aborted by close(), or the connection broke: either way the stream is over
    }
    this.finish();
  }

  private push(event: SseEvent): void {
    this.events.push(event);
    const index = this.events.length - 1;
    for (const waiter of [...this.waiters]) {
      if (index >= waiter.from && waiter.match(event)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  }

  private finish(): void {
    this.ended = true;
    for (const resolve of this.endWaiters.splice(0)) resolve();
  }
}
