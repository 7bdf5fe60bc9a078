import { describe, expect, it } from 'vitest';
import { editorsOf, isWatchedChange } from './watch.js';

describe('watching rules', () => {
  it('only a title or content change is a watched change', () => {
    expect(isWatchedChange(['title'])).toBe(true);
    expect(isWatchedChange(['content', 'lastEditedBy'])).toBe(true);
    expect(isWatchedChange(['icon', 'coverImageUrl', 'lastEditedBy'])).toBe(false);
    expect(isWatchedChange([])).toBe(false);
  });

  it('the editors are the actor and everyone the event names, each once; nobody when neither is known', () => {
    expect(editorsOf({ actorId: 'a', data: {} })).toEqual(['a']);
    expect(editorsOf({ actorId: 'a', data: { editors: ['b', 'a', 'c'] } })).toEqual(['a', 'b', 'c']);
    expect(editorsOf({ actorId: null, data: { editors: ['b'] } })).toEqual(['b']);
    expect(editorsOf({ actorId: null, data: {} })).toEqual([]);
  });
});
