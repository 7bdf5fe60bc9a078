import { AppError } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimiter } from '../rate-limit.js';

/**
 * What the gateway can tell of a presented credential before checking it, without a signature
 * check, a key fetch or a lookup. Every `refused` verdict is one the full check would reach too:
 * the screening never turns a valid credential away.
 */
export type Screened<T> =
  /** Certainly refused: malformed, wrong algorithm, issuer or audience, unknown key id, a remembered refusal. */
  | { verdict: 'refused'; error: AppError }
  /** An expired token: a stale session (a tab left open), not a guess. 401, never counted. */
  | { verdict: 'stale'; error: AppError }
  /** Valid in a cache, or valid not long ago: its check is cheap or owed to a known caller. */
  | { verdict: 'known'; check: () => Promise<T> }
  /** Only the full check can tell. */
  | { verdict: 'unknown'; check: () => Promise<T> };

/** A refusal for an expired credential: answered 401 like any other, but not a guess. */
export class StaleCredential extends AppError {
  constructor(message: string) {
    super('UNAUTHORIZED', message);
  }
}

/** A 429 of the guessing budget; `retryAfterSeconds` goes into Retry-After. */
export class GuessingThrottled extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** A refusal of a presented credential that counts against its address's budget. */
export function isGuess(error: unknown): boolean {
  return error instanceof AppError && error.code === 'UNAUTHORIZED' && !(error instanceof StaleCredential);
}

/**
 * Full checks of unknown credentials that one address over its budget may have running at a time
 * on one replica; beyond them its credentials wait for nothing: 429 with Retry-After 1.
 */
export const CHECKS_PER_SPENT_ADDRESS = 2;

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function overBudget(leftMs: number): GuessingThrottled {
  return new GuessingThrottled(secondsOf(leftMs), 'Too many refused credentials from this address, retry later');
}

/**
 * The budget of refused credentials per client address (ARCHITECTURE 5.13), without lockouts.
 * Under budget, a credential is checked and a refusal counts. Over budget, a credential that fails
 * is answered 429 without further work, and a valid one is served: the screening refuses what it
 * can tell is wrong (429 at once, nothing counted, no Redis), a known credential is checked as
 * usual, and an unknown one gets one of CHECKS_PER_SPENT_ADDRESS full checks at a time (429 when
 * none is free, or when it fails). Expired tokens are never guesses: 401 at any budget.
 */
export class GuessingBudget {
  /** Full checks running per address over budget. */
  private readonly checking = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly checksPerSpentAddress = CHECKS_PER_SPENT_ADDRESS,
  ) {}

  /**
   * The checked credential, or its refusal: 401 (counted against `address`), 429 (over budget),
   * or whatever else the check throws (503 when what it needs is down). Without an address
   * (a collaboration server of the previous release) nothing is counted or limited. With the
   * ticket of a collab upgrade that came without a token, a refusal takes over its count.
   */
  async judge<T>(
    screened: Screened<T>,
    address: string | undefined,
    log: FastifyBaseLogger,
    upgradeTicket?: string,
  ): Promise<T> {
    if (screened.verdict === 'stale') throw screened.error;
    const spentMs = address === undefined ? 0 : this.limiter.spentMs(address);
    if (address !== undefined && spentMs > 0) return this.judgeOverBudget(screened, address, spentMs);
    try {
      if (screened.verdict === 'refused') throw screened.error;
      return await screened.check();
    } catch (error) {
      if (address !== undefined && isGuess(error)) {
        const overMs = await this.limiter.countRefusedCredential(address, log, upgradeTicket);
        // Another replica (or a guess in flight here) spent the budget before this one.
        if (overMs > 0) throw overBudget(overMs);
      }
      throw error;
    }
  }

  private async judgeOverBudget<T>(
    screened: Exclude<Screened<T>, { verdict: 'stale' }>,
    address: string,
    spentMs: number,
  ): Promise<T> {
    if (screened.verdict === 'refused') throw overBudget(spentMs);
    if (screened.verdict === 'known') return this.checkOverBudget(screened.check, address);
    const running = this.checking.get(address) ?? 0;
    if (running >= this.checksPerSpentAddress) {
      throw new GuessingThrottled(1, 'Too many credentials from this address are being checked, retry shortly');
    }
    this.checking.set(address, running + 1);
    try {
      return await this.checkOverBudget(screened.check, address);
    } finally {
      const left = (this.checking.get(address) ?? 1) - 1;
      if (left > 0) this.checking.set(address, left);
      else this.checking.delete(address);
    }
  }

  /** Over budget, a refusal is a 429 and counts nothing more (the window's end would not move). */
  private async checkOverBudget<T>(check: () => Promise<T>, address: string): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (isGuess(error)) throw overBudget(this.limiter.spentMs(address));
      throw error;
    }
  }
}
