import type { NatsConnection } from '@nats-io/transport-node';
import type { Config } from '@wiki/config';
import {
  ConnectionSlots,
  closeLimitsRedis,
  createLimitsRedis,
  redisReady,
  type Slot,
  type SlotsLogger,
} from '@wiki/limits';

/**
 * What an SSE session gets last when a newer session of the same MCP key pushes it out. The long
 * `retry` keeps an EventSource that reconnects by itself from pushing out the next one at once.
 */
export const TOO_MANY_SESSIONS_NOTICE =
  'retry: 30000\nevent: reconnect\ndata: {"reason":"too many sessions for this MCP key"}\n\n';

/**
 * At most MCP_SESSIONS_PER_KEY open SSE sessions per MCP key across every replica (ARCHITECTURE
 * 5.14): a new one is always served and closes the key's oldest, wherever it is. Why the oldest
 * and not a refusal: docs/DECISIONS.md, "Long-lived connections per user".
 */
export class SessionLimit {
  private readonly redis;
  private readonly slots: ConnectionSlots;

  constructor(config: Config, logger: SlotsLogger) {
    this.redis = createLimitsRedis(config.redisUrl);
    this.slots = new ConnectionSlots({
      kind: 'mcp-sessions',
      limit: config.connectionLimits.mcpSessionsPerKey,
      atLimit: 'close-oldest',
      redis: this.redis,
      keyPrefix: `${config.dbPrefix}:limits:`,
      subjectPrefix: `${config.eventsPrefix}-limits`,
      logger,
    });
  }

  /** Sessions of this replica closed because a newer one of their key came (a metric). */
  get pushedOut(): number {
    return this.slots.pushedOut;
  }

  /** Waits (briefly) for Redis, so that the first sessions are counted. */
  ready(): Promise<void> {
    return redisReady(this.redis);
  }

  /** Hears of this replica's sessions that a newer one on another replica pushed out. */
  attach(nc: NatsConnection): void {
    this.slots.attach(nc);
  }

  /** Counts a new session of the key; `pushedOut` ends it when a newer one takes its place. */
  admit(keyId: string, pushedOut: () => void): Promise<Slot> {
    // The close-oldest policy never refuses.
    return this.slots.take(keyId, pushedOut) as Promise<Slot>;
  }

  /** After the sessions have ended (shutdown): uncounts what is left and lets Redis go. */
  async close(): Promise<void> {
    await this.slots.close();
    await closeLimitsRedis(this.redis);
  }
}
