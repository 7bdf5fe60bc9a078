/**
 * Group commit for a hot write: calls made while earlier ones are being written are sent to the
 * database together, as one statement (one round trip, one commit, one WAL flush) instead of one
 * each. A lone call goes out at once (after the current I/O phase, so calls that arrived in the same
 * burst join it); under load the batches grow by themselves, with no timer to tune.
 */
export interface Batcher<I, O> {
  submit(item: I): Promise<O>;
}

export interface BatcherOptions<I> {
  /** Most items per batch. */
  maxItems: number;
  /** With `weightOf`: a batch stops growing once its items weigh this much (e.g. bytes). */
  maxWeight?: number;
  weightOf?: (item: I) => number;
  /** Batches in flight at once (default 2: one is written while the next fills). */
  concurrency?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * `runBatch` gets the items in the order they were submitted and answers one result per item, in
 * the same order. When a batch of several fails, each of its items is run again alone, so that one
 * bad item fails only its own caller.
 */
export function createBatcher<I, O>(runBatch: (items: I[]) => Promise<O[]>, options: BatcherOptions<I>): Batcher<I, O> {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const maxItems = Math.max(1, options.maxItems);
  const queue: Array<Pending<I, O>> = [];
  let inFlight = 0;
  let scheduled = false;

  function takeBatch(): Array<Pending<I, O>> {
    if (!options.weightOf || options.maxWeight === undefined) return queue.splice(0, maxItems);
    let weight = 0;
    let n = 0;
    while (n < queue.length && n < maxItems) {
      weight += options.weightOf(queue[n].item);
      if (n > 0 && weight > options.maxWeight) break; // a heavy item still goes, alone
      n++;
    }
    return queue.splice(0, n);
  }

  /** runBatch with its answer checked; a synchronous throw becomes a rejection. */
  async function results(items: I[]): Promise<O[]> {
    const answered = await runBatch(items);
    if (answered.length !== items.length)
      throw new Error(`batch of ${items.length} answered ${answered.length} results`);
    return answered;
  }

  async function run(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const answered = await results(batch.map((p) => p.item));
      for (const [i, p] of batch.entries()) p.resolve(answered[i]);
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const p of batch) {
        await results([p.item]).then(([result]) => p.resolve(result), p.reject);
      }
    }
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < concurrency && queue.length > 0) {
      inFlight++;
      void run(takeBatch()).finally(() => {
        inFlight--;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= concurrency) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
