import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import { ConnectionSlots, type Slot, type SlotsLogger } from './connection-slots.js';
import { closeLimitsRedis, createLimitsRedis, redisReady } from './redis.js';

/** Where the counts live and what keeps environments sharing a Redis or NATS apart (the service's config). */
export interface LimitsPlace {
  redisUrl: string;
  dbPrefix: string;
  eventsPrefix: string;
}

/**
 * A bound of `limit` long-lived connections per owner across every replica, where a new connection
 * is always served and closes the owner's oldest, wherever it is (notification streams, MCP
 * sessions: a dead tab or a dropped assistant must not lock its owner out). It holds a Redis
 * client of its own, closed with it.
 */
export class NewestWinsLimit {
  private readonly redis: Redis;
  private readonly slots: ConnectionSlots;

  constructor(place: LimitsPlace, kind: string, limit: number, logger: SlotsLogger) {
    this.redis = createLimitsRedis(place.redisUrl);
    this.slots = new ConnectionSlots({
      kind,
      limit,
      atLimit: 'close-oldest',
      redis: this.redis,
      keyPrefix: `${place.dbPrefix}:limits:`,
      subjectPrefix: `${place.eventsPrefix}-limits`,
      logger,
    });
  }

  /** Connections of this replica closed because a newer one of their owner came (a metric). */
  get pushedOut(): number {
    return this.slots.pushedOut;
  }

  /** Waits (briefly) for Redis, so that the first connections are counted. */
  ready(): Promise<void> {
    return redisReady(this.redis);
  }

  /** Hears of this replica's connections that a newer one on another replica pushed out. */
  attach(nc: NatsConnection): void {
    this.slots.attach(nc);
  }

  /** Counts a new connection of the owner; `pushedOut` ends it when a newer one takes its place. */
  admit(owner: string, pushedOut: () => void): Promise<Slot> {
    // The close-oldest policy never refuses.
    return this.slots.take(owner, pushedOut) as Promise<Slot>;
  }

  /** After the connections have ended (shutdown): uncounts what is left and lets Redis go. */
  async close(): Promise<void> {
    await this.slots.close();
    await closeLimitsRedis(this.redis);
  }
}
