import type { CommonQueryMethods, DatabasePool } from '@wiki/db';

/** Transactions (or connections) that wrote at least one outbox row: publishInTx notes them here. */
const wroteEvents = new WeakSet<object>();

/** Called by every outbox write of libs/events, so the transaction that carried it wakes the relay. */
export function noteEventsWritten(db: CommonQueryMethods): void {
  wroteEvents.add(db);
}

/**
 * The pool a service's commands and consumers write through. A transaction that wrote events
 * (`publishInTx`) wakes the outbox relay once it has committed, so the events leave at once
 * instead of at the relay's next poll; nobody calls a wake-up by hand, and read-only or failed
 * transactions wake nothing. Everything else is the pool itself.
 */
export function wakeRelayAfterCommit(pool: DatabasePool, wake: () => void): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler, retryLimit) => {
    let wrote = false;
    const result = await pool.transaction(async (tx) => {
      const value = await handler(tx);
      wrote = wroteEvents.has(tx);
      return value;
    }, retryLimit);
    if (wrote) wake();
    return result;
  };
  // slonik's pool is an object of closures: a copy with one method replaced costs nothing per call
  // (a Proxy would look every method up and bind it on every query).
  return { ...pool, transaction };
}
