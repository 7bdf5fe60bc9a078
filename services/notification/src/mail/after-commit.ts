import type { CommonQueryMethods, DatabasePool } from '@wiki/db';

/** Transactions (of kickAfterCommit's pool) that wrote a message to send, until they commit. */
const planned = new WeakMap<object, { wrote: boolean }>();

/** Notes that `db` wrote to the outbox: the queue is told once the transaction commits. */
export function mailPlanned(db: CommonQueryMethods): void {
  const mark = planned.get(db);
  if (mark) mark.wrote = true;
}

/**
 * The pool whose transactions call `kick` after a commit that wrote a message, so it is queued at
 * once rather than at the relay's next round (see live/after-commit.ts for the same pattern).
 */
export function kickAfterCommit(pool: DatabasePool, kick: () => void): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler, retryLimit) => {
    const mark = { wrote: false };
    const result = await pool.transaction(async (tx) => {
      mark.wrote = false; // a retried transaction starts over
      planned.set(tx, mark);
      return handler(tx);
    }, retryLimit);
    if (mark.wrote) kick();
    return result;
  };
  return { ...pool, transaction };
}
