import { describe, expect, it } from 'vitest';
import {
  CONTENT_MAX_CHARS,
  MAX_MENTIONS,
  mentionedUserIds,
  newlyMentioned,
  parseMentions,
  searchableText,
} from './mentions.js';

const ADA = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const BOB = '0b9f1d2e-3c4a-4b5c-8d6e-7f8091a2b3c4';
const AUTHOR = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';

describe('parseMentions', () => {
  it('finds well-formed tokens with their display names', () => {
    expect(parseMentions(`Hi @[Ada Lovelace](${ADA}), see @[Bob](${BOB}).`)).toEqual([
      { userId: ADA, displayName: 'Ada Lovelace' },
      { userId: BOB, displayName: 'Bob' },
    ]);
  });

  it('finds tokens at the very start and end and next to each other', () => {
    expect(parseMentions(`@[Ada](${ADA})@[Bob](${BOB})`).map((m) => m.userId)).toEqual([ADA, BOB]);
  });

  it('collapses duplicates, also when the id differs only in case', () => {
    const mentions = parseMentions(`@[Ada](${ADA}) and again @[Ada L.](${ADA.toUpperCase()})`);
    expect(mentions).toEqual([{ userId: ADA, displayName: 'Ada' }]);
  });

  it('ignores a token with a missing bracket or parenthesis', () => {
    expect(parseMentions(`@Ada](${ADA})`)).toEqual([]);
    expect(parseMentions(`@[Ada(${ADA})`)).toEqual([]);
    expect(parseMentions(`@[Ada](${ADA}`)).toEqual([]);
    expect(parseMentions(`@[Ada]${ADA})`)).toEqual([]);
    expect(parseMentions(`[Ada](${ADA})`)).toEqual([]);
  });

  it('ignores ids that are not UUIDs', () => {
    expect(parseMentions('@[Ada](ada)')).toEqual([]);
    expect(parseMentions('@[Ada](7c9e6679-7425-40de-944b-e07fc1f90ae)')).toEqual([]); // one digit short
    expect(parseMentions(`@[Ada](${ADA}0)`)).toEqual([]); // one digit long
    expect(parseMentions('@[Ada](7c9e6679-7425-40de-944b-e07fc1f90aeg)')).toEqual([]);
    expect(parseMentions(`@[Ada](<${ADA}>)`)).toEqual([]); // the angle brackets are not part of the syntax
    expect(parseMentions(`@[Ada]( ${ADA} )`)).toEqual([]);
  });

  it('ignores nested brackets in the display name', () => {
    expect(parseMentions(`@[Ada [the first]](${ADA})`)).toEqual([]);
    expect(parseMentions(`@[[Ada]](${ADA})`)).toEqual([]);
  });

  it('ignores escaped tokens but not a mention after an escaped backslash', () => {
    expect(parseMentions(`\\@[Ada](${ADA})`)).toEqual([]);
    expect(parseMentions(`@[Ada\\](${ADA})`)).toEqual([]);
    expect(parseMentions(`\\\\@[Ada](${ADA})`).map((m) => m.userId)).toEqual([ADA]);
  });

  it('ignores blank names and names spanning lines', () => {
    expect(parseMentions(`@[](${ADA})`)).toEqual([]);
    expect(parseMentions(`@[   ](${ADA})`)).toEqual([]);
    expect(parseMentions(`@[Ada\nLovelace](${ADA})`)).toEqual([]);
  });

  it('keeps the well-formed tokens among malformed ones', () => {
    const text = `@[Ada](nope) @[Bob](${BOB}) @[x [y]](${ADA})`;
    expect(parseMentions(text).map((m) => m.userId)).toEqual([BOB]);
  });

  it('finds nothing in plain text', () => {
    expect(parseMentions('')).toEqual([]);
    expect(parseMentions('mail me at ada@example.com [link](https://example.com)')).toEqual([]);
  });
});

describe('mentionedUserIds', () => {
  it('never includes the author', () => {
    expect(mentionedUserIds(`@[Me](${AUTHOR}) @[Ada](${ADA})`, AUTHOR)).toEqual([ADA]);
    expect(mentionedUserIds(`@[Me](${AUTHOR.toUpperCase()})`, AUTHOR)).toEqual([]);
  });

  it('keeps at most MAX_MENTIONS users', () => {
    const ids = Array.from(
      { length: MAX_MENTIONS + 5 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const text = ids.map((id, i) => `@[U${i}](${id})`).join(' ');
    expect(mentionedUserIds(text, AUTHOR)).toEqual(ids.slice(0, MAX_MENTIONS));
  });
});

describe('newlyMentioned', () => {
  it('lists the users an edit adds', () => {
    expect(newlyMentioned([ADA], [ADA, BOB])).toEqual([BOB]);
    expect(newlyMentioned([ADA, BOB], [BOB])).toEqual([]);
  });
});

describe('searchableText', () => {
  it('shows each well-formed mention as @Name and leaves everything else as written', () => {
    expect(searchableText(`Hi @[ Ada Lovelace ](${ADA}), see @[Bob](${BOB.toUpperCase()}).`)).toBe(
      'Hi @Ada Lovelace, see @Bob.',
    );
    // Escaped, blank or malformed tokens are text.
    expect(searchableText(`\\@[Ada](${ADA}) @[ ](${BOB}) @[Bob](not-an-id)`)).toBe(
      `\\@[Ada](${ADA}) @[ ](${BOB}) @[Bob](not-an-id)`,
    );
  });

  it('keeps at most CONTENT_MAX_CHARS characters, never splitting one', () => {
    expect(searchableText('a'.repeat(CONTENT_MAX_CHARS))).toHaveLength(CONTENT_MAX_CHARS);
    const long = `${'😀'.repeat(CONTENT_MAX_CHARS)}tail`;
    const text = searchableText(long);
    expect(Array.from(text)).toHaveLength(CONTENT_MAX_CHARS);
    expect(text).toBe('😀'.repeat(CONTENT_MAX_CHARS));
  });
});
