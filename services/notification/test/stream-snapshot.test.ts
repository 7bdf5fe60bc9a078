import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertNotification, markRead } from '../src/db/notifications.js';
import { NotificationStreams } from '../src/live/streams.js';
import { notificationService } from '../src/service.js';
import { type SseEvent, SseStream } from './sse.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Query methods of a slonik pool that the streams read with. */
const QUERY_METHODS = new Set(['any', 'anyFirst', 'many', 'one', 'oneFirst', 'maybeOne', 'maybeOneFirst', 'query']);

interface Hold {
  /** Resolves once a query matching the pattern arrived and is being held. */
  reached: Promise<void>;
  release(): void;
}

/**
 * The pool with a hand on it: `hold(pattern)` stops the next query whose SQL matches until
 * released, while every other query runs; `idle()` waits until no query that was let through
 * is still running. That is how a test puts a commit exactly between two reads.
 */
function heldPool(pool: DatabasePool) {
  const armed: Array<{ pattern: RegExp; reached: () => void; released: Promise<void> }> = [];
  let running = 0;
  let idleWaiters: Array<() => void> = [];
  const settle = () => {
    if (running > 0) return;
    for (const wake of idleWaiters) wake();
    idleWaiters = [];
  };
  const held = new Proxy(pool, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      if (!QUERY_METHODS.has(String(name))) return value.bind(target);
      return async (query: { sql: string }, ...rest: unknown[]) => {
        const index = armed.findIndex((h) => h.pattern.test(query.sql));
        if (index !== -1) {
          const [hold] = armed.splice(index, 1);
          hold.reached();
          await hold.released;
          return value.call(target, query, ...rest);
        }
        running += 1;
        try {
          return await value.call(target, query, ...rest);
        } finally {
          running -= 1;
          settle();
        }
      };
    },
  });
  return {
    pool: held,
    hold(pattern: RegExp): Hold {
      let reached!: () => void;
      let release!: () => void;
      const hold: Hold = {
        reached: new Promise((resolve) => {
          reached = resolve;
        }),
        release: () => release(),
      };
      armed.push({
        pattern,
        reached,
        released: new Promise((resolve) => {
          release = resolve;
        }),
      });
      return hold;
    },
    idle(): Promise<void> {
      return running === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

/** `c<count>` for an unread-count event, `n` for a notification. */
const shape = (e: SseEvent) =>
  e.event === 'unread-count' ? `c${(JSON.parse(e.data ?? '{}') as { unreadCount: number }).unreadCount}` : 'n';

/**
 * The unread count a stream sends beside its notifications is read in the same snapshot as they
 * are (ARCHITECTURE 5.6). The interleaving that broke it, forced here: a look at the stream whose
 * reads straddle the commit of a new notification, then the person reads that notification as
 * soon as it arrives, before the next look counts. Read on two connections side by side, the
 * count predated the notification: the stream sent it uncounted (count still 0), the read left
 * the count at 0, and no unread-count ever followed the read.
 */
describe('notification stream: a page and its count come from one snapshot', () => {
  let config: Config;
  let pool: DatabasePool;
  let server: Server;
  let url: string;
  let gate: ReturnType<typeof heldPool>;
  let streams: NotificationStreams;

  beforeAll(async () => {
    config = isolatedConfig(UNUSED_IDP);
    await prepareDatabase(notificationService, config);
    pool = await createDatabasePool(config.databaseUrls.notification);
    gate = heldPool(pool);
    streams = new NotificationStreams(gate.pool, silent, 60_000);
    // One stream per request for the user in the path, from notification number 0.
    server = createServer((req, res) => streams.serve(String(req.url).slice(1), res, 0, randomUUID()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    streams?.closeAll();
    await new Promise((resolve) => server?.close(resolve));
    await pool?.end();
    await cleanupConfig(config);
  });

  it('counts a notification that committed between the reads of a look, and follows its read with a count', async () => {
    const userId = randomUUID();
    const stream = await SseStream.open(`${url}/${userId}`);
    try {
      await stream.count(0);

      // A look whose page read is held: whatever else it reads now runs before the commit below.
      const pageRead = gate.hold(/seq >/);
      streams.notify([userId]);
      await pageRead.reached;
      await gate.idle();

      // The notification commits; its message comes while the look is still under way.
      const made = await insertNotification(
        pool,
        {
          userId,
          type: 'MEMBER_ROLE_CHANGED',
          title: 'Role changed',
          message: 'You are an editor now',
          actorId: null,
          workspaceId: null,
          sourceKey: randomUUID(),
        },
        { actorName: null, actorAvatar: null, workspaceName: null, documentTitle: null },
      );
      expect(made).toBe(true);
      streams.notify([userId]);

      // The next count is held until the person has read the notification they were just sent.
      const nextCount = gate.hold(/count\(\*\)/);
      pageRead.release();
      const arrived = await stream.next((e) => e.event === 'notification');
      const id = (JSON.parse(arrived.data ?? '{}') as { id: string }).id;
      expect(await markRead(pool, id, userId)).not.toBeNull();
      streams.notify([userId]);
      nextCount.release();

      // What the person sees: the notification counted as it arrives, then the count after the read.
      const after = stream.events.indexOf(arrived);
      await Promise.race([stream.count(0, after), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      expect(stream.events.filter((e) => e.event).map(shape)).toEqual(['c0', 'n', 'c1', 'c0']);
    } finally {
      stream.close();
    }
  });
});
