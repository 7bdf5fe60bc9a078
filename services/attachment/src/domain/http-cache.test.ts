import { etagOf, noneMatch, rangeOf } from './http-cache.js';

describe('ETag and If-None-Match', () => {
  const etag = etagOf('ab'.repeat(32));
  it('matches the tag, a weak form of it, one of a list, or *', () => {
    expect(noneMatch(etag, etag)).toBe(true);
    expect(noneMatch(`W/${etag}`, etag)).toBe(true);
    expect(noneMatch(`"other", ${etag}`, etag)).toBe(true);
    expect(noneMatch('*', etag)).toBe(true);
    expect(noneMatch('"other"', etag)).toBe(false);
    expect(noneMatch(undefined, etag)).toBe(false);
  });
});

describe('rangeOf', () => {
  it.each([
    ['bytes=0-9', { kind: 'partial', range: { start: 0, end: 9 } }],
    ['bytes=90-', { kind: 'partial', range: { start: 90, end: 99 } }],
    ['bytes=-10', { kind: 'partial', range: { start: 90, end: 99 } }],
    ['bytes=-500', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=50-1000', { kind: 'partial', range: { start: 50, end: 99 } }],
    ['bytes=100-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=9-3', { kind: 'whole' }],
    ['bytes=0-1,5-6', { kind: 'whole' }],
    ['items=0-1', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
  ])('%s of 100 bytes', (header, answer) => {
    expect(rangeOf(header, 100)).toEqual(answer);
  });

  it('If-Range with another tag asks for the whole', () => {
    expect(rangeOf('bytes=0-1', 100, '"old"', '"new"')).toEqual({ kind: 'whole' });
    expect(rangeOf('bytes=0-1', 100, '"new"', '"new"')).toEqual({ kind: 'partial', range: { start: 0, end: 1 } });
  });
});
