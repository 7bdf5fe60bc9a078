import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimiter } from './rate-limit.js';

export interface AwaitingTokenOptions {
  /** Sockets at a time per address over its budget that may wait for their first valid token. */
  perAddress: number;
  /** How long such a socket may take to present a valid token before it is closed. */
  deadlineMs: number;
  /** How often its ticket is looked at in Redis while it waits. */
  pollMs: number;
}

export const DEFAULT_AWAITING_TOKEN: AwaitingTokenOptions = { perAddress: 4, deadlineMs: 10_000, pollMs: 1_000 };

/**
 * Collab sockets upgraded without a token from an address over its guessing budget. Their token
 * comes inside the WebSocket and is verified by whichever gateway replica collab asks, which
 * redeems the upgrade's ticket in Redis; here each such socket holds one of the address's few
 * slots until its ticket is redeemed, and is closed if that has not happened by the deadline.
 * Editors behind the address still connect (a valid token takes milliseconds); a guesser there
 * holds at most `perAddress` sockets, each for at most `deadlineMs`.
 */
export class UpgradesAwaitingToken {
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly rateLimiter: RateLimiter,
    private readonly options: AwaitingTokenOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Takes a slot for the socket of `ticket` and watches it; false when the address has none free. */
  admit(address: string, ticket: string, socket: Duplex): boolean {
    const taken = this.waiting.get(address) ?? 0;
    if (taken >= this.options.perAddress) return false;
    this.waiting.set(address, taken + 1);

    const startedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      const left = (this.waiting.get(address) ?? 1) - 1;
      if (left > 0) this.waiting.set(address, left);
      else this.waiting.delete(address);
    };
    const poll = async () => {
      const awaits = await this.rateLimiter.upgradeAwaitsToken(ticket, this.log);
      if (released) return;
      if (!awaits) return release();
      if (Date.now() - startedAt >= this.options.deadlineMs) {
        release();
        socket.destroy();
        return;
      }
      timer = setTimeout(poll, this.options.pollMs).unref();
    };
    socket.once('close', release);
    timer = setTimeout(poll, this.options.pollMs).unref();
    return true;
  }
}
