import { describe, expect, it } from 'vitest';
import { deletedIds } from './document-projection.js';

describe('deletedIds', () => {
  it('takes every id a cascade names, once each', () => {
    expect(deletedIds({ id: 'a', ids: ['a', 'b', 'a', 'c'] })).toEqual(['a', 'b', 'c']);
  });
  it('falls back to the single id', () => {
    expect(deletedIds({ id: 'a' })).toEqual(['a']);
    expect(deletedIds({ id: 'a', ids: [] })).toEqual(['a']);
  });
  it('finds nothing in a malformed event', () => {
    expect(deletedIds({})).toEqual([]);
  });
});
