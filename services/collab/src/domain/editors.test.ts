import { MAX_SAVE_EDITORS, RecentEditors } from './editors.js';

const ids = (editors: RecentEditors) => editors.snapshot().map(([id]) => id);

describe('RecentEditors', () => {
  it('names each editor once, most recent last', () => {
    const editors = new RecentEditors();
    for (const id of ['a', 'b', 'a', 'c']) editors.touch(id);
    expect(ids(editors)).toEqual(['b', 'a', 'c']);
  });

  it('keeps the last 50 editors', () => {
    const editors = new RecentEditors();
    for (let i = 0; i < MAX_SAVE_EDITORS + 5; i += 1) editors.touch(`user-${i}`);
    const named = ids(editors);
    expect(named).toHaveLength(MAX_SAVE_EDITORS);
    expect(named[0]).toBe('user-5');
    expect(named.at(-1)).toBe(`user-${MAX_SAVE_EDITORS + 4}`);
  });

  it('forgets a saved snapshot, except the editors who edited again during the save', () => {
    const editors = new RecentEditors();
    editors.touch('a');
    editors.touch('b');
    const snapshot = editors.snapshot();
    editors.touch('b'); // typed again while the save was on its way
    editors.touch('c');
    editors.saved(snapshot);
    expect(ids(editors)).toEqual(['b', 'c']);
    editors.saved(editors.snapshot());
    expect(ids(editors)).toEqual([]);
  });
});
