import { hashOf, keyOf } from './keys.js';

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
