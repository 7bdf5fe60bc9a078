import type { Config } from '@wiki/config';
import type { EventBus } from '@wiki/events';
import {
  ConnectionSlots,
  closeLimitsRedis,
  createLimitsRedis,
  redisReady,
  type Slot,
  type SlotsLogger,
} from '@wiki/limits';

/**
 * What a stream gets last when a newer stream of the same user pushes it out. The long `retry`
 * keeps an EventSource that reconnects by itself (an old background tab) from pushing out the
 * next oldest at once, round and round; a client that sees this reason should come back when
 * its user does, not straight away.
 */
export const TOO_MANY_STREAMS_NOTICE = 'retry: 30000\nevent: reconnect\ndata: {"reason":"too many streams"}\n\n';

/**
 * At most NOTIFICATION_STREAMS_PER_USER open streams per user across every replica (ARCHITECTURE
 * 5.14): a new one is always served and closes the user's oldest, wherever it is. Each stream
 * holds a connection at the gateway and a reader here; a user with a hundred tabs should not.
 */
export class StreamLimit {
  private readonly redis;
  private readonly slots: ConnectionSlots;

  constructor(config: Config, logger: SlotsLogger) {
    this.redis = createLimitsRedis(config.redisUrl);
    this.slots = new ConnectionSlots({
      kind: 'notification-streams',
      limit: config.connectionLimits.notificationStreamsPerUser,
      atLimit: 'close-oldest',
      redis: this.redis,
      keyPrefix: `${config.dbPrefix}:limits:`,
      subjectPrefix: `${config.eventsPrefix}-limits`,
      logger,
    });
  }

  /** Streams of this replica closed because a newer one of their user came (a metric). */
  get pushedOut(): number {
    return this.slots.pushedOut;
  }

  /** Waits (briefly) for Redis, so that the first streams are counted. */
  ready(): Promise<void> {
    return redisReady(this.redis);
  }

  /** Hears of this replica's streams that a newer stream on another replica pushed out. */
  attach(bus: EventBus): void {
    this.slots.attach(bus.nc);
  }

  /** Counts a new stream of the user; `pushedOut` ends it when a newer one takes its place. */
  admit(userId: string, pushedOut: () => void): Promise<Slot> {
    // The close-oldest policy never refuses.
    return this.slots.take(userId, pushedOut) as Promise<Slot>;
  }

  /** After the streams have ended (shutdown): uncounts what is left and lets Redis go. */
  async close(): Promise<void> {
    await this.slots.close();
    await closeLimitsRedis(this.redis);
  }
}
