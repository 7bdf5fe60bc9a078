import { LocalCache } from './local-cache.js';

describe('LocalCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forgets entries when they expire, by the wall clock', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const cache = new LocalCache<string>({ maxEntries: 10, ttlMs: 1_000 });
    cache.set('a', 'one');
    cache.set('b', 'two', { ttlMs: 5_000 });
    vi.setSystemTime(start + 999);
    expect(cache.get('a')).toBe('one');
    vi.setSystemTime(start + 1_001);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('two');
  });

  it('keeps nothing for a time to live of zero or less, and drops what the key held', () => {
    const cache = new LocalCache<string>({ maxEntries: 10 });
    cache.set('a', 'one');
    cache.set('a', 'two', { ttlMs: 0 });
    cache.set('b', 'one', { ttlMs: -5 });
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('without a time to live, keeps an entry until it is evicted', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = new LocalCache<string>({ maxEntries: 10 });
    cache.set('a', 'one');
    vi.setSystemTime(Date.now() + 365 * 86_400_000);
    expect(cache.get('a')).toBe('one');
  });

  it('drops the least recently used entry beyond its entry count', () => {
    const cache = new LocalCache<number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
  });

  it('keeps within its byte budget, re-counting an entry set again', () => {
    const cache = new LocalCache<Buffer>({ maxEntries: 100, maxBytes: 10, sizeOf: (value) => value.length });
    cache.set('a', Buffer.alloc(4));
    cache.set('b', Buffer.alloc(4));
    cache.set('c', Buffer.alloc(4));
    expect([cache.get('a'), cache.get('b')?.length, cache.get('c')?.length]).toEqual([undefined, 4, 4]);
    // An entry larger than the whole budget is not kept at all.
    cache.set('huge', Buffer.alloc(11));
    expect(cache.get('huge')).toBeUndefined();
    // An entry that grew is counted anew when set again: the others make room.
    const grown = { bytes: 1 };
    const counted = new LocalCache<{ bytes: number }>({
      maxEntries: 100,
      maxBytes: 10,
      sizeOf: (value) => value.bytes,
    });
    counted.set('x', { bytes: 5 });
    counted.set('grown', grown);
    grown.bytes = 9;
    counted.set('grown', grown);
    expect([counted.get('x'), counted.get('grown')]).toEqual([undefined, grown]);
  });

  it('refuses a byte budget without a way to count bytes, and no bound at all', () => {
    expect(() => new LocalCache<string>({ maxEntries: 1, maxBytes: 10 })).toThrow(/sizeOf/);
    expect(() => new LocalCache<string>({})).toThrow(/maxEntries or maxBytes/);
  });

  it('a time to live of zero or less in the options turns the cache off', () => {
    const cache = new LocalCache<string>({ maxEntries: 10, ttlMs: 0 });
    cache.set('a', 'one');
    expect(cache.get('a')).toBeUndefined();
  });

  it('deletes the entries whose key matches', () => {
    const cache = new LocalCache<number>({ maxEntries: 10 });
    cache.set('w1:a', 1);
    cache.set('w1:b', 2);
    cache.set('w2:a', 3);
    cache.deleteWhere((key) => key.startsWith('w1:'));
    expect([cache.get('w1:a'), cache.get('w1:b'), cache.get('w2:a')]).toEqual([undefined, undefined, 3]);
  });

  it('getOrLoad loads once for concurrent misses and keeps what is not undefined', async () => {
    const cache = new LocalCache<string>({ maxEntries: 10 });
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)])).toEqual(['v1', 'v1']);
    expect(await cache.getOrLoad('k', load)).toBe('v1');
    const unknown = async () => {
      loads++;
      return undefined;
    };
    expect(await cache.getOrLoad('missing', unknown)).toBeUndefined();
    expect(await cache.getOrLoad('missing', unknown)).toBeUndefined();
    expect(loads).toBe(3);
  });

  it('getOrLoad keeps nothing from a load that failed', async () => {
    const cache = new LocalCache<string>({ maxEntries: 10 });
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.getOrLoad('k', async () => 'up')).toBe('up');
  });
});
