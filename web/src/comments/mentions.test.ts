import { describe, expect, it } from 'vitest';
import { contentOf, draftOf, mentionQueryAt, segmentsOf, tokenName } from './mentions';

const ADA = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const BEN = '0b8a2c1e-5f3d-4e6a-9b7c-1d2e3f4a5b6c';

describe('mentions in comment content (ARCHITECTURE 5.6)', () => {
  it('splits content into text and mentions, leaving escaped and malformed tokens as text', () => {
    expect(segmentsOf(`Hi @[Ada Lovelace](${ADA}), see \\@[Ben](${BEN}) and @[Ben](not-an-id).`)).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'mention', name: 'Ada Lovelace', userId: ADA },
      { kind: 'text', text: `, see \\@[Ben](${BEN}) and @[Ben](not-an-id).` },
    ]);
    expect(segmentsOf('<b>not html</b>')).toEqual([{ kind: 'text', text: '<b>not html</b>' }]);
  });

  it('turns a comment into what the box shows and back, keeping its mentions', () => {
    const content = `@[Ada Lovelace](${ADA}) and @[Ben](${BEN}): @Ada Lovelace again`;
    const draft = draftOf(content);
    expect(draft.text).toBe('@Ada Lovelace and @Ben: @Ada Lovelace again');
    expect(draft.mentions).toEqual([
      { name: 'Ada Lovelace', userId: ADA },
      { name: 'Ben', userId: BEN },
    ]);
    // Every @Name of a picked person is theirs, the plain one included.
    expect(contentOf(draft.text, draft.mentions)).toBe(
      `@[Ada Lovelace](${ADA}) and @[Ben](${BEN}): @[Ada Lovelace](${ADA}) again`,
    );
  });

  it('matches whole names only: a longer word, an e-mail address or a shorter picked name stay apart', () => {
    const mentions = [
      { name: 'Ada', userId: BEN },
      { name: 'Ada Lovelace', userId: ADA },
    ];
    expect(contentOf('@Ada Lovelace, @Adam, x@Ada and @Ada.', mentions)).toBe(
      `@[Ada Lovelace](${ADA}), @Adam, x@Ada and @[Ada](${BEN}).`,
    );
  });

  it('keeps names the token can hold', () => {
    expect(tokenName(' Ada [the first]\\ \n Lovelace ')).toBe('Ada the first Lovelace');
    expect(tokenName('[]')).toBe('Someone');
    expect(tokenName('x'.repeat(300))).toHaveLength(200);
  });

  it('finds the @query being typed before the caret', () => {
    expect(mentionQueryAt('Hello @Ad', 9)).toEqual({ start: 6, query: 'Ad' });
    expect(mentionQueryAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionQueryAt('(@Ada Lo', 8)).toEqual({ start: 1, query: 'Ada Lo' });
    expect(mentionQueryAt('mail me@example', 15)).toBeNull();
    expect(mentionQueryAt('@ ada', 5)).toBeNull();
    expect(mentionQueryAt('@Ada\nnext', 9)).toBeNull();
    expect(mentionQueryAt(`@${'a'.repeat(41)}`, 42)).toBeNull();
  });
});
