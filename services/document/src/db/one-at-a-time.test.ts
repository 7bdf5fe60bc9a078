import { describe, expect, it } from 'vitest';
import { oneAtATimePerKey } from './one-at-a-time.js';

/** A task that ends when told to, recording when it started and ended. */
function controlled(log: string[], name: string, fail = false) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const task = async () => {
    log.push(`start ${name}`);
    await done;
    log.push(`end ${name}`);
    if (fail) throw new Error(`${name} failed`);
    return name;
  };
  return { task, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('oneAtATimePerKey', () => {
  it('runs one key’s tasks in order, one at a time, and other keys’ tasks meanwhile', async () => {
    const run = oneAtATimePerKey();
    const log: string[] = [];
    const [a1, a2, b1] = [controlled(log, 'a1'), controlled(log, 'a2'), controlled(log, 'b1')];
    const results = [run('a', a1.task), run('a', a2.task), run('b', b1.task)];
    await tick();
    expect(log).toEqual(['start a1', 'start b1']);
    a2.finish(); // told to end before it started: it still waits for a1
    await tick();
    expect(log).toEqual(['start a1', 'start b1']);
    a1.finish();
    b1.finish();
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
  });

  it('goes on with the next task after one fails, and each caller gets its own outcome', async () => {
    const run = oneAtATimePerKey();
    const log: string[] = [];
    const [bad, good] = [controlled(log, 'bad', true), controlled(log, 'good')];
    const first = run('k', bad.task);
    const second = run('k', good.task);
    bad.finish();
    good.finish();
    await expect(first).rejects.toThrow('bad failed');
    expect(await second).toBe('good');
    // The key is forgotten once its queue is empty: a later task starts at once.
    const later = controlled(log, 'later');
    const third = run('k', later.task);
    await tick();
    expect(log.at(-1)).toBe('start later');
    later.finish();
    expect(await third).toBe('later');
  });
});
