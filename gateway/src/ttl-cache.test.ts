import { hashOf, keyOf, SingleFlight, TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('forgets entries when they expire', () => {
    const cache = new TtlCache<string>();
    cache.set('a', 'one', 1_000, 0);
    expect(cache.get('a', 999)).toBe('one');
    expect(cache.get('a', 1_000)).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = new TtlCache<number>(2);
    cache.set('a', 1, 1_000, 0);
    cache.set('b', 2, 1_000, 0);
    cache.set('c', 3, 1_000, 0);
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([undefined, 2, 3]);
  });
});

describe('SingleFlight', () => {
  it('shares one running load between concurrent callers, and runs again afterwards', async () => {
    const flight = new SingleFlight<number>();
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([flight.run('k', load), flight.run('k', load)])).toEqual([1, 1]);
    expect(await flight.run('k', load)).toBe(2);
  });
});

describe('hashOf and keyOf', () => {
  it('tell apart parts that concatenate alike', () => {
    for (const of of [hashOf, keyOf]) {
      expect(of('ab', 'c')).not.toBe(of('a', 'bc'));
      expect(of('a', undefined)).not.toBe(of('a', ''));
      expect(of('a', 'b')).toBe(of('a', 'b'));
    }
  });

  it('hashOf keeps nothing of the secret', () => {
    const secret = 'eyJhbGciOiJFUzI1NiJ9.secret-part';
    expect(hashOf(secret)).not.toContain('secret');
    expect(hashOf(secret)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
