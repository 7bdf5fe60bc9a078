/**
 * Reads of a workspace's version (migrations/0007_tree_versions.sql) shared by the requests that
 * want it at the same time: while one read is running, every request that asks waits for the next
 * one, which starts when the running one ends; so at most one read per workspace is running and one
 * waiting, however many requests come. A request only ever gets the answer of a read that started
 * after it asked, so it sees every write committed before it arrived (a client reading its own
 * write, on any replica). A running read is never joined: its snapshot may predate that write.
 */
export function sharedVersionReads(read: (workspaceId: string) => Promise<number>) {
  const running = new Map<string, Promise<number>>();
  const waiting = new Map<string, Promise<number>>();

  function start(workspaceId: string): Promise<number> {
    const reading = read(workspaceId).finally(() => {
      if (running.get(workspaceId) === reading) running.delete(workspaceId);
    });
    running.set(workspaceId, reading);
    return reading;
  }

  return function versionOf(workspaceId: string): Promise<number> {
    const next = waiting.get(workspaceId);
    if (next) return next;
    const current = running.get(workspaceId);
    if (!current) return start(workspaceId);
    const after = current
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        waiting.delete(workspaceId);
        return start(workspaceId);
      });
    waiting.set(workspaceId, after);
    return after;
  };
}
