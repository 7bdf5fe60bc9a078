import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('gives the burst at once, then the rate, and never more', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 5, () => now);
    for (let i = 0; i < 5; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now += 100; // one token at 10 per second
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now += 10_000; // refills to the burst, not past it
    for (let i = 0; i < 5; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it('a sender at the rate is never refused', () => {
    let now = 0;
    const bucket = new TokenBucket(20, 1, () => now);
    for (let i = 0; i < 1000; i++) {
      expect(bucket.take()).toBe(true);
      now += 50;
    }
  });
});
