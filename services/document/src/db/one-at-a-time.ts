/**
 * Runs one key's items one run after another, in the order given, and other keys' runs side by
 * side. For edits of one document: concurrent UPDATEs of one row wait on each other inside
 * Postgres anyway (every waiter is woken at each commit to re-check the row, which costs more CPU
 * the more of them wait); queued here they cost a promise each. The first item of a key runs
 * alone at once; the items that arrive meanwhile wait, and when the run ends they go together, in
 * order, as one run of at most `maxTogether`: a document edited by many at once is written one
 * burst per run rather than one edit per run. A run that fails is retried item by item, so each
 * caller gets its own outcome and one bad item never fails the others.
 */
export function oneAtATimePerKey<I, O>(run: (items: I[]) => Promise<O[]>, maxTogether: number) {
  interface Waiting {
    item: I;
    resolve(result: O): void;
    reject(error: unknown): void;
  }
  /** A key's waiting items; the key is present while a run of it is under way. */
  const waitingOf = new Map<string, Waiting[]>();

  async function runAll(items: Waiting[]): Promise<void> {
    try {
      const results = await run(items.map((w) => w.item));
      if (results.length !== items.length) throw new Error(`${items.length} items answered ${results.length}`);
      for (const [i, w] of items.entries()) w.resolve(results[i]);
    } catch (error) {
      if (items.length === 1) return items[0].reject(error);
      for (const w of items) {
        await run([w.item]).then(([result]) => w.resolve(result), w.reject);
      }
    }
  }

  async function drain(key: string, first: Waiting): Promise<void> {
    let next = [first];
    while (next.length > 0) {
      await runAll(next);
      const waiting = waitingOf.get(key) ?? [];
      next = waiting.splice(0, maxTogether);
    }
    waitingOf.delete(key);
  }

  return function submit(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const waiting = waitingOf.get(key);
      if (waiting) {
        waiting.push({ item, resolve, reject });
        return;
      }
      waitingOf.set(key, []);
      void drain(key, { item, resolve, reject });
    });
  };
}
