import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';

/** Users whose notifications a transaction changed, until it commits. */
const touchedBy = new WeakMap<DatabaseTransactionConnection, Set<string>>();

/**
 * Notes that `tx` changed what these users see. They are told (`notify`) once the transaction
 * has committed, never before: a stream that looked earlier would not find the change yet.
 */
export function touch(tx: DatabaseTransactionConnection, userIds: Iterable<string>): void {
  const set = touchedBy.get(tx);
  if (!set) return; // a transaction outside notifyAfterCommit's pool: nobody to tell
  for (const id of userIds) set.add(id);
}

/**
 * The pool whose transactions call `notify` with the users they touched, after the commit. A
 * transaction that rolls back tells nobody. (A copy of the pool with one method replaced, like
 * libs/events' wakeRelayAfterCommit.)
 */
export function notifyAfterCommit(pool: DatabasePool, notify: (userIds: Iterable<string>) => void): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler, retryLimit) => {
    const touched = new Set<string>();
    const result = await pool.transaction(async (tx) => {
      touched.clear(); // a retried transaction starts over
      touchedBy.set(tx, touched);
      return handler(tx);
    }, retryLimit);
    if (touched.size > 0) notify(touched);
    return result;
  };
  return { ...pool, transaction };
}
