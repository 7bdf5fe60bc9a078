import { describe, expect, it } from 'vitest';
import { oneAtATimePerKey } from './one-at-a-time.js';

/** A run function whose runs end when told to, recording what each run held. */
function controlledRuns(failing: (item: string) => boolean = () => false) {
  const runs: string[][] = [];
  const finishers: Array<() => void> = [];
  const run = async (items: string[]) => {
    runs.push(items);
    await new Promise<void>((resolve) => finishers.push(resolve));
    if (items.some(failing)) throw new Error(`run of ${items.join(',')} failed`);
    return items.map((item) => `done ${item}`);
  };
  /** Ends the oldest unfinished run. */
  const finishNext = () => finishers.shift()?.();
  return { run, runs, finishNext };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('oneAtATimePerKey', () => {
  it('runs a key’s first item alone, the ones that came meanwhile together in order, other keys beside', async () => {
    const { run, runs, finishNext } = controlledRuns();
    const submit = oneAtATimePerKey(run, 2);
    const answers = [submit('a', 'a1'), submit('a', 'a2'), submit('b', 'b1'), submit('a', 'a3'), submit('a', 'a4')];
    await tick();
    expect(runs).toEqual([['a1'], ['b1']]);
    finishNext(); // a1
    await tick();
    // At most two together: a4 waits for the next run.
    expect(runs.slice(2)).toEqual([['a2', 'a3']]);
    finishNext(); // b1
    finishNext(); // a2, a3
    await tick();
    expect(runs.slice(3)).toEqual([['a4']]);
    finishNext();
    expect(await Promise.all(answers)).toEqual(['done a1', 'done a2', 'done b1', 'done a3', 'done a4']);
  });

  it('retries a failed run item by item, so only the bad item fails; then forgets the key', async () => {
    const { run, runs, finishNext } = controlledRuns((item) => item === 'bad');
    const submit = oneAtATimePerKey(run, 10);
    const first = submit('k', 'first');
    const bad = submit('k', 'bad');
    const good = submit('k', 'good');
    const ending = setInterval(finishNext, 1);
    try {
      expect(await first).toBe('done first');
      await expect(bad).rejects.toThrow('run of bad failed');
      expect(await good).toBe('done good');
      expect(runs).toEqual([['first'], ['bad', 'good'], ['bad'], ['good']]);
      // The key is forgotten once its queue is empty: a later item runs alone at once.
      expect(await submit('k', 'later')).toBe('done later');
      expect(runs.at(-1)).toEqual(['later']);
    } finally {
      clearInterval(ending);
    }
  });
});
