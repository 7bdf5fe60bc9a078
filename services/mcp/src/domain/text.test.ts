import { describe, expect, it } from 'vitest';
import { LIST_MAX, pageOf, paragraphsOf, RESULT_MAX_CHARS, snippetText, windowOf } from './text.js';

const texts = (blocks: Array<Record<string, unknown>>) =>
  blocks.map((b) => (b.content as Array<{ text: string }>)[0].text);

describe('paragraphsOf', () => {
  it('splits at blank lines and keeps single line breaks inside a paragraph', () => {
    expect(texts(paragraphsOf('one\ntwo\n\nthree\r\n\r\nfour\n \t\nfive'))).toEqual([
      'one\ntwo',
      'three',
      'four',
      'five',
    ]);
  });

  it('drops empty parts and makes paragraph blocks with ids', () => {
    const blocks = paragraphsOf('\n\n\nonly\n\n\n\n');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ type: 'paragraph', props: {}, children: [] });
    expect(typeof blocks[0].id).toBe('string');
    expect(paragraphsOf('  \n\n ')).toEqual([]);
  });
});

describe('windowOf', () => {
  it('answers the window and where to go on', () => {
    expect(windowOf('abcdefghij', 2, 3)).toEqual({ text: 'cde', offset: 2, totalChars: 10, nextOffset: 5 });
    expect(windowOf('abcdefghij', 8, 5)).toEqual({ text: 'ij', offset: 8, totalChars: 10, nextOffset: null });
    expect(windowOf('abc', 10)).toEqual({ text: '', offset: 3, totalChars: 3, nextOffset: null });
  });

  it('never passes the result cap and never splits a surrogate pair', () => {
    const long = 'x'.repeat(RESULT_MAX_CHARS + 5);
    expect(windowOf(long, 0, RESULT_MAX_CHARS * 2).text).toHaveLength(RESULT_MAX_CHARS);
    expect(windowOf(long).nextOffset).toBe(RESULT_MAX_CHARS);
    const w = windowOf('a😀b', 0, 2);
    expect(w.text).toBe('a');
    expect(w.nextOffset).toBe(1);
  });
});

describe('pageOf', () => {
  it('pages and counts what is left', () => {
    const all = Array.from({ length: 250 }, (_, i) => i);
    const first = pageOf(all);
    expect(first.items).toHaveLength(LIST_MAX);
    expect(first).toMatchObject({ total: 250, offset: 0, remaining: 150, nextOffset: 100 });
    expect(pageOf(all, 200, 1000)).toMatchObject({ remaining: 0, nextOffset: null, items: all.slice(200) });
    expect(pageOf(all, 10, 5).items).toEqual([10, 11, 12, 13, 14]);
  });
});

it('snippetText removes the marks and the escaping', () => {
  expect(snippetText('a <mark>b&amp;c</mark> &lt;tag&gt; &quot;q&quot; &#39;s&#39; &#38; &#x26; &bogus;')).toBe(
    'a b&c <tag> "q" \'s\' & & &bogus;',
  );
});
