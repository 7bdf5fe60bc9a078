import type { ServerResponse } from 'node:http';
import type { DatabasePool } from '@wiki/db';
import { type EventBus, type Logger, liveSubject } from '@wiki/events';
import { catchUpPage, lastSeqOf, type StreamRow } from '../db/notifications.js';
import { presentNotification } from '../presenters/notification.js';
import { TreeWatchers } from './tree-watch.js';

/** Rows read per query while a stream catches up (a long-gone client may have missed many). */
const CATCH_UP_PAGE = 100;
/**
 * Bytes a stream may have waiting in memory for a client that does not read. Past it the stream
 * is closed: the client reconnects with Last-Event-ID and loses nothing, and a stalled reader
 * cannot make the replica hold an ever-growing buffer.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** What a stream gets last when its replica stops (closeAll). */
export const RECONNECT_NOTICE = 'retry: 1000\nevent: reconnect\ndata: {"reason":"replica stopping"}\n\n';

/**
 * Core NATS subject (not JetStream: nothing here needs keeping) on which any replica says "this
 * user's notifications changed". It sits beside the event subjects rather than under
 * `<prefix>.>`, which the event stream captures. The message is empty: the user id is the last
 * token, and each replica reads what changed from the database, so a message stays a few bytes.
 */
export const userLiveSubject = (prefix: string, userId: string) => liveSubject(prefix, `notification.${userId}`);

/**
 * The open `GET /notifications/stream` responses of this replica, by user, and the fan-out that
 * reaches them from every replica: whoever changes a user's notifications (the event consumer
 * making one, an HTTP command reading one, the expiry sweep) publishes the user's id after its
 * commit; every replica subscribes and brings its streams of that user up to date from the
 * database. A replica thus never needs to know who made a change.
 */
export class NotificationStreams {
  private readonly byUser = new Map<string, Set<StreamClient>>();
  private bus: EventBus | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Streams that also carry a workspace's `tree` messages. */
  readonly trees: TreeWatchers;

  constructor(
    private readonly pool: DatabasePool,
    private readonly logger: Logger,
    private readonly heartbeatMs: number,
  ) {
    this.trees = new TreeWatchers(logger);
  }

  /** Open streams on this replica (health details). */
  get open(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }

  /** Joins the fan-out (a consumer starter of the service: the bus exists once the app is built). */
  connect(bus: EventBus): { stop(): Promise<void> } {
    this.bus = bus;
    const subscription = bus.nc.subscribe(userLiveSubject(bus.prefix, '*'), {
      callback: (error, msg) => {
        if (error) {
          this.logger.warn({ err: error }, 'notification fan-out subscription failed');
          return;
        }
        const userId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        this.refresh(userId);
      },
    });
    // What was said while this replica was cut off from NATS is lost: look again for every stream.
    const stopListening = bus.onReconnect(() => {
      for (const userId of this.byUser.keys()) this.refresh(userId);
    });
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
    const trees = this.trees.connect(bus);
    return {
      stop: async () => {
        await trees.stop();
        stopListening();
        if (this.heartbeat) clearInterval(this.heartbeat);
        this.heartbeat = null;
        this.bus = null;
        subscription.unsubscribe();
        this.closeAll();
      },
    };
  }

  /**
   * Tells every replica that these users' notifications changed. Called after the commit. Before
   * the fan-out is joined (never, once the service runs) the local streams are told directly.
   */
  notify(userIds: Iterable<string>): void {
    const bus = this.bus;
    for (const userId of userIds) {
      if (bus && !bus.nc.isClosed()) bus.nc.publish(userLiveSubject(bus.prefix, userId));
      else this.refresh(userId);
    }
  }

  /**
   * The number of the user's latest notification: where a stream that starts "from now" starts.
   */
  currentPosition(userId: string): Promise<number> {
    return lastSeqOf(this.pool, userId);
  }

  /**
   * Serves one stream on a hijacked reply until the client goes away. `lastEventId`: the last
   * notification number the client saw, or `currentPosition` for a new stream (it gets every
   * visible one after it, then the count). `treeOf`: a workspace of the user whose `tree` messages
   * the stream carries too.
   */
  serve(userId: string, res: ServerResponse, lastEventId: number, requestId: string, treeOf?: string): ServedStream {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      // nginx and the like would otherwise buffer the stream.
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
      'x-request-id': requestId,
    });
    // A reconnecting client waits this long (the browser's default is about 3 s).
    res.write('retry: 3000\n\n');
    const client = new StreamClient(userId, res, this.pool, this.logger, lastEventId);
    let set = this.byUser.get(userId);
    if (!set) {
      set = new Set();
      this.byUser.set(userId, set);
    }
    set.add(client);
    const unwatch = treeOf ? this.trees.watch(treeOf, client) : undefined;
    res.once('close', () => {
      client.closed = true;
      unwatch?.();
      const own = this.byUser.get(userId);
      own?.delete(client);
      if (own?.size === 0) this.byUser.delete(userId);
    });
    // Registered first, then read: a change committed meanwhile marks it for another look.
    client.sync();
    return {
      endWith: (notice) => {
        client.write(notice);
        client.end();
      },
    };
  }

  /** Brings this replica's streams of the user up to date. */
  private refresh(userId: string): void {
    const set = this.byUser.get(userId);
    if (set) for (const client of set) client.sync();
  }

  /** A comment line keeps proxies from closing a quiet stream and lets clients see a dead one. */
  private beat(): void {
    for (const set of this.byUser.values()) for (const client of set) client.write(': heartbeat\n\n');
  }

  /**
   * Ends every stream (shutdown): each is first told to come back soon (`retry`) and why (a
   * `reconnect` event), so an EventSource reconnects within a second, through the gateway to
   * another replica, and resumes with its Last-Event-ID: nothing is lost in between.
   */
  closeAll(): void {
    for (const set of this.byUser.values())
      for (const client of set) {
        client.write(RECONNECT_NOTICE);
        client.end();
      }
  }
}

/** A stream as its route sees it: it can be ended with a last word (the per-user limit). */
export interface ServedStream {
  endWith(notice: string): void;
}

/** One open stream: what it has sent so far, and the one catch-up running at a time. */
class StreamClient {
  closed = false;
  private cursor: number;
  private lastCount: number | null = null;
  private running = false;
  private again = false;

  constructor(
    readonly userId: string,
    private readonly res: ServerResponse,
    private readonly pool: DatabasePool,
    private readonly logger: Logger,
    lastEventId: number,
  ) {
    this.cursor = lastEventId;
  }

  /** Sends what is new since the last look; a call while one runs makes it look once more after. */
  sync(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.catchUp()
      .catch((err) => {
        // The client reconnects with its Last-Event-ID and loses nothing.
        this.logger.warn({ err, userId: this.userId }, 'notification stream update failed; closing it');
        this.end();
      })
      .finally(() => {
        this.running = false;
      });
  }

  private async catchUp(): Promise<void> {
    do {
      this.again = false;
      // Each page comes with the count of the same snapshot (one statement), so the count sent
      // after a page always includes its notifications that are still unread. A change committed
      // after the read has its own message coming, which makes a next look.
      let page = await catchUpPage(this.pool, this.userId, this.cursor, CATCH_UP_PAGE);
      for (;;) {
        for (const row of page.rows) this.sendNotification(row);
        if (page.rows.length < CATCH_UP_PAGE || this.closed) break;
        page = await catchUpPage(this.pool, this.userId, this.cursor, CATCH_UP_PAGE);
      }
      const count = page.unread;
      if (count !== this.lastCount && !this.closed) {
        this.lastCount = count;
        this.write(`id: ${this.cursor}\nevent: unread-count\ndata: ${JSON.stringify({ unreadCount: count })}\n\n`);
      }
    } while (this.again && !this.closed);
  }

  private sendNotification(row: StreamRow): void {
    this.cursor = row.seq;
    this.write(`id: ${row.seq}\nevent: notification\ndata: ${JSON.stringify(presentNotification(row))}\n\n`);
  }

  write(chunk: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.logger.info({ userId: this.userId }, 'notification stream client does not read; closing it');
      this.end();
      return;
    }
    this.res.write(chunk);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.res.end();
  }
}
