import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './webhook-retry.js';
import { signatureHeader } from './webhook-signature.js';

describe('webhook signature and retries', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 in hex', () => {
    const header = signatureHeader('s3cret', '{"a":1}', 1_700_000_000);
    const expected = createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
  });

  it('waits twice as long after each failure, up to the cap', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 10_000))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(20, 10_000)).toBe(3_600_000);
    expect(retryDelayMs(500, 10)).toBe(3_600_000);
  });
});
