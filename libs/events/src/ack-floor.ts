import type { EventBus } from './bus.js';
import { errorText, type Logger } from './logger.js';

/** How long one reading of the consumer and stream serves every caller (default of `maxAgeMs`). */
export const ACK_FLOOR_MAX_AGE_MS = 250;

export interface AckFloorOptions {
  bus: EventBus;
  /** The durable consumer (startConsumer's `name`). */
  consumer: string;
  logger: Logger;
  maxAgeMs?: number;
}

interface Reading {
  /** performance.now() when the lookup was sent: the reading shows the server at that time or later. */
  at: number;
  /** Every message of the consumer up to this stream sequence is acknowledged or terminated. */
  ackFloor: number;
  /** The stream's last sequence. */
  lastSeq: number;
}

/**
 * Answers whether a durable consumer has finished with every message up to a stream sequence:
 * acknowledged (startConsumer acks after its transaction committed) or given up on (terminated,
 * dead-lettered). A handler that stores its event's StreamPosition can so wait until every older
 * event has been applied, whichever replica applied it. One lookup (consumer and stream info) is
 * shared by every caller for `maxAgeMs`.
 */
export class AckFloor {
  private reading: Reading | null = null;
  private pending: { at: number; read: Promise<Reading | null> } | null = null;
  private failing = false;
  private readonly maxAgeMs: number;

  constructor(private readonly options: AckFloorOptions) {
    this.maxAgeMs = options.maxAgeMs ?? ACK_FLOOR_MAX_AGE_MS;
  }

  /**
   * True when every message up to `streamSeq` is done with. `seenAt` (performance.now()) is a time
   * at which the message was known to be in the stream (e.g. when the row made from it was read).
   * False while the floor is below, and while the consumer or the stream cannot be read (NATS away,
   * the consumer not created yet): waiting loses nothing. True as well for a sequence the stream
   * does not have, on a reading made after `seenAt`: the stream was re-created (its sequences
   * started over), and the older events were applied under the old one.
   */
  async passed(streamSeq: number, seenAt: number): Promise<boolean> {
    let r = await this.read();
    if (r && r.ackFloor >= streamSeq) return true;
    if (!r || streamSeq <= r.lastSeq) return false;
    // Beyond the stream's end as last seen: the reading may be older than the message; look again.
    r = await this.read(seenAt);
    if (!r) return false;
    return r.ackFloor >= streamSeq || streamSeq > r.lastSeq;
  }

  /** A reading not older than `maxAgeMs`, and made after `since` when given; null when unreadable. */
  private read(since = Number.NEGATIVE_INFINITY): Promise<Reading | null> {
    const now = performance.now();
    const r = this.reading;
    if (r && r.at >= since && now - r.at < this.maxAgeMs) return Promise.resolve(r);
    if (this.pending && this.pending.at >= since) return this.pending.read;
    const pending = { at: now, read: this.lookUp(now) };
    this.pending = pending;
    void pending.read.finally(() => {
      if (this.pending === pending) this.pending = null;
    });
    return pending.read;
  }

  private async lookUp(at: number): Promise<Reading | null> {
    const { bus, consumer, logger } = this.options;
    try {
      const [info, stream] = await Promise.all([
        bus.jsm.consumers.info(bus.stream, consumer),
        bus.jsm.streams.info(bus.stream),
      ]);
      const reading = { at, ackFloor: info.ack_floor.stream_seq, lastSeq: stream.state.last_seq };
      if (!this.reading || this.reading.at <= at) this.reading = reading;
      if (this.failing) logger.info({ consumer }, 'event consumer ack floor readable again');
      this.failing = false;
      return reading;
    } catch (error) {
      // Once per outage: callers keep waiting and asking.
      if (!this.failing) {
        logger.warn({ consumer, error: errorText(error) }, 'event consumer ack floor unreadable; waiting');
      }
      this.failing = true;
      return null;
    }
  }
}
