import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.js';

const tick = (ms = 0) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A runBatch that records every batch it is given and answers `answer(item)` per item after `delayMs`. */
function recording<I, O>(answer: (item: I) => O, delayMs = 1) {
  const batches: I[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const runBatch = async (items: I[]): Promise<O[]> => {
    batches.push([...items]);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await tick(delayMs);
      return items.map(answer);
    } finally {
      inFlight--;
    }
  };
  return { runBatch, batches, maxInFlight: () => maxInFlight };
}

describe('createBatcher', () => {
  it('sends calls made together as one batch and answers each caller its own result', async () => {
    const r = recording((n: number) => `r${n}`);
    const batcher = createBatcher(r.runBatch, { maxItems: 100 });
    const items = Array.from({ length: 20 }, (_, i) => i);
    const results = await Promise.all(items.map((i) => batcher.submit(i)));
    expect(results).toEqual(items.map((i) => `r${i}`));
    expect(r.batches.length).toBeLessThan(items.length);
    expect(r.batches).toEqual([items]); // all submitted in one tick: one batch, in submission order
  });

  it('groups calls that arrive while a batch is in flight, keeping their order', async () => {
    const r = recording((n: number) => n * 2, 20);
    const batcher = createBatcher(r.runBatch, { maxItems: 100, concurrency: 1 });
    const first = batcher.submit(0);
    await tick(5); // the first batch is now being written
    const later = [1, 2, 3, 4, 5].map((i) => batcher.submit(i));
    expect(await Promise.all([first, ...later])).toEqual([0, 2, 4, 6, 8, 10]);
    expect(r.batches).toEqual([[0], [1, 2, 3, 4, 5]]);
  });

  it('sends a lone call alone, without waiting for company', async () => {
    const r = recording((s: string) => s.toUpperCase());
    const batcher = createBatcher(r.runBatch, { maxItems: 100 });
    expect(await batcher.submit('a')).toBe('A');
    expect(await batcher.submit('b')).toBe('B');
    expect(r.batches).toEqual([['a'], ['b']]);
  });

  it('caps a batch at maxItems', async () => {
    const r = recording((n: number) => n);
    const batcher = createBatcher(r.runBatch, { maxItems: 3 });
    const items = Array.from({ length: 10 }, (_, i) => i);
    expect(await Promise.all(items.map((i) => batcher.submit(i)))).toEqual(items);
    expect(r.batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    expect(r.batches.flat()).toEqual(items);
  });

  it('caps a batch by weight, and still sends an item heavier than the cap, alone', async () => {
    const r = recording((s: string) => s.length);
    const batcher = createBatcher(r.runBatch, {
      maxItems: 100,
      maxWeight: 10,
      weightOf: (s) => s.length,
      concurrency: 1,
    });
    const items = ['aaaa', 'bbbb', 'cccc', 'd'.repeat(20), 'e', 'f', 'gggggggg'];
    expect(await Promise.all(items.map((s) => batcher.submit(s)))).toEqual(items.map((s) => s.length));
    expect(r.batches).toEqual([['aaaa', 'bbbb'], ['cccc'], ['d'.repeat(20)], ['e', 'f', 'gggggggg']]);
    for (const batch of r.batches) {
      if (batch.length > 1) expect(batch.join('').length).toBeLessThanOrEqual(10);
    }
  });

  it('ignores maxWeight without weightOf (only maxItems caps)', async () => {
    const r = recording((s: string) => s);
    const batcher = createBatcher(r.runBatch, { maxItems: 2, maxWeight: 1 });
    expect(await Promise.all(['a', 'b', 'c'].map((s) => batcher.submit(s)))).toEqual(['a', 'b', 'c']);
    expect(r.batches).toEqual([['a', 'b'], ['c']]);
  });

  it('has at most `concurrency` batches in flight (default 2)', async () => {
    const two = recording((n: number) => n, 5);
    const byDefault = createBatcher(two.runBatch, { maxItems: 1 });
    const items = Array.from({ length: 8 }, (_, i) => i);
    expect(await Promise.all(items.map((i) => byDefault.submit(i)))).toEqual(items);
    expect(two.batches.length).toBe(8);
    expect(two.maxInFlight()).toBe(2);

    const three = recording((n: number) => n, 5);
    const wider = createBatcher(three.runBatch, { maxItems: 1, concurrency: 3 });
    expect(await Promise.all(items.map((i) => wider.submit(i)))).toEqual(items);
    expect(three.maxInFlight()).toBe(3);

    const one = recording((n: number) => n, 5);
    const serial = createBatcher(one.runBatch, { maxItems: 2, concurrency: 1 });
    expect(await Promise.all(items.map((i) => serial.submit(i)))).toEqual(items);
    expect(one.maxInFlight()).toBe(1);
    expect(one.batches).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
  });

  it('when a batch of several fails, runs its items again alone: only the bad item rejects', async () => {
    const batches: string[][] = [];
    const batcher = createBatcher(
      async (items: string[]) => {
        batches.push([...items]);
        await tick();
        if (items.includes('bad')) throw new Error('bad row');
        return items.map((s) => `ok:${s}`);
      },
      { maxItems: 100 },
    );
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((s) => batcher.submit(s)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'ok:a' },
      { status: 'rejected', reason: new Error('bad row') },
      { status: 'fulfilled', value: 'ok:c' },
    ]);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);

    // The batcher goes on working afterwards.
    expect(await batcher.submit('d')).toBe('ok:d');
  });

  it('rejects a lone call whose batch fails, with the error of runBatch', async () => {
    let calls = 0;
    const batcher = createBatcher(
      async (_items: number[]): Promise<number[]> => {
        calls++;
        throw new Error('down');
      },
      { maxItems: 10 },
    );
    await expect(batcher.submit(1)).rejects.toThrow('down');
    expect(calls).toBe(1); // a lone item is not run twice
  });

  it('treats an answer of the wrong length as an error', async () => {
    const lone = createBatcher(async (_items: number[]) => [] as number[], { maxItems: 10 });
    await expect(lone.submit(1)).rejects.toThrow('batch of 1 answered 0 results');

    const tooMany = createBatcher(async (items: number[]) => [...items, 99], { maxItems: 10 });
    await expect(tooMany.submit(1)).rejects.toThrow('batch of 1 answered 2 results');
  });

  it('re-runs alone the items of a batch answered with the wrong length', async () => {
    const batches: number[][] = [];
    // Answers one result too few for a batch of several, correctly for one item.
    const batcher = createBatcher(
      async (items: number[]) => {
        batches.push([...items]);
        return items.length > 1 ? items.slice(1) : items.map((n) => n + 100);
      },
      { maxItems: 10 },
    );
    expect(await Promise.all([1, 2, 3].map((n) => batcher.submit(n)))).toEqual([101, 102, 103]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('rejects every item of a batch that answers with the wrong length, also when re-run alone', async () => {
    // Never answers one result per item: no caller may get a made-up (undefined) result.
    const batcher = createBatcher(async (_items: number[]) => [] as number[], { maxItems: 10 });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => batcher.submit(n)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
