import { describe, expect, it } from 'vitest';
import { ConfigError, envVar, flag, matching, oneOf, readEnv, refuse, text, url, wholeNumber } from './index.js';

function errorOf(read: () => unknown): ConfigError {
  try {
    read();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readEnv', () => {
  const schema = {
    NAME: text('wiki'),
    SIZE: wholeNumber(10, { min: 1, max: 100 }),
    ON: flag(false),
    MODE: oneOf(['a', 'b'] as const, 'a'),
    SLUG: matching(/^[a-z]+$/, 'lowercase letters', 'x'),
    LINK: url(['http:', 'https:']),
  };

  it('gives the fallbacks for unset and empty variables', () => {
    expect(readEnv({ NAME: '', SIZE: '' }, schema)).toEqual({
      NAME: 'wiki',
      SIZE: 10,
      ON: false,
      MODE: 'a',
      SLUG: 'x',
      LINK: undefined,
    });
  });

  it('reads each variable', () => {
    expect(
      readEnv(
        { NAME: 'n', SIZE: ' 42 ', ON: 'Yes', MODE: 'b', SLUG: 'abc', LINK: 'https://h/p//', OTHER: 'x' },
        schema,
      ),
    ).toEqual({ NAME: 'n', SIZE: 42, ON: true, MODE: 'b', SLUG: 'abc', LINK: 'https://h/p' });
  });

  it.each([
    [{ SIZE: 'ten' }, 'SIZE must be a whole number, got "ten"'],
    [{ SIZE: '1.5' }, 'SIZE must be a whole number, got "1.5"'],
    [{ SIZE: '101' }, 'SIZE must be between 1 and 100, got 101'],
    [{ ON: 'maybe' }, 'ON must be true or false, got "maybe"'],
    [{ MODE: 'c' }, 'MODE must be one of a, b, got "c"'],
    [{ SLUG: 'A' }, 'SLUG must be lowercase letters, got "A"'],
    [{ LINK: 'ftp://h' }, 'LINK must use http: or https:, got "ftp:"'],
    [{ LINK: 'http://user:hunter2@' }, 'LINK must be a URL, got "http://user:***@"'],
  ])('names the variable of a bad value, as before: %o', (env, message) => {
    expect(errorOf(() => readEnv(env, schema)).message).toBe(`Invalid configuration: ${message}`);
  });

  it('names the first bad variable in the order of the schema', () => {
    expect(errorOf(() => readEnv({ MODE: 'c', SIZE: 'x' }, schema)).variable).toBe('SIZE');
  });

  it('takes readings of its own, made with envVar and refuse', () => {
    const pair = envVar((raw) => {
      const [a, b] = (raw ?? '1:2').split(':').map(Number);
      if (!(a > 0 && b > 0)) refuse('must be two positive numbers, e.g. 1:2');
      return { a, b };
    });
    expect(readEnv({}, { PAIR: pair }).PAIR).toEqual({ a: 1, b: 2 });
    expect(readEnv({ PAIR: '3:4' }, { PAIR: pair }).PAIR).toEqual({ a: 3, b: 4 });
    expect(errorOf(() => readEnv({ PAIR: '0:1' }, { PAIR: pair })).message).toBe(
      'Invalid configuration: PAIR must be two positive numbers, e.g. 1:2',
    );
  });
});
