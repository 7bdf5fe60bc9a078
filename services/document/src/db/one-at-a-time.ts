/**
 * Runs the tasks given for one key one after another, in the order given, and tasks for different
 * keys side by side. For edits of one document: concurrent UPDATEs of one row wait on each other
 * inside Postgres anyway, and there every waiter is woken at each commit to re-check the row, which
 * costs more CPU the more of them wait; queued here they cost a promise each and reach Postgres
 * one at a time. A task that fails does not stop the ones queued after it.
 */
export function oneAtATimePerKey() {
  const lastOf = new Map<string, Promise<unknown>>();
  return function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = lastOf.get(key);
    const result = before ? before.then(task, task) : task();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    lastOf.set(key, settled);
    void settled.then(() => {
      if (lastOf.get(key) === settled) lastOf.delete(key);
    });
    return result;
  };
}
