import { describe, expect, it } from 'vitest';
import { fold, foldWithOrigin } from './fold.js';
import { parseQuery } from './query.js';
import {
  escapeHtml,
  firstMatch,
  headlineHtml,
  markTerms,
  START_SEL,
  STOP_SEL,
  snippetOf,
  windowAround,
} from './snippet.js';
import { titleKey, unitsOf } from './tokens.js';
import { documentVectors } from './vector.js';

describe('folding', () => {
  it('folds accents, case, full width and a few letters decomposition keeps', () => {
    expect(fold('Café CRÈME Brûlée')).toBe('cafe creme brulee');
    expect(fold('Straße Øre Æsir ŁÓDŹ')).toBe('strasse ore aesir lodz');
    expect(fold('ＡＢＣ１２３')).toBe('abc123');
  });

  it('leaves Chinese, Japanese and Korean as they are (no voicing marks or jamo split off)', () => {
    expect(fold('ガイド 검색 训练')).toBe('ガイド 검색 训练');
  });

  it('knows where each folded character came from', () => {
    const { folded, origin } = foldWithOrigin('aßc');
    expect(folded).toBe('assc');
    expect(origin).toEqual([0, 1, 1, 2, 3]);
  });
});

describe('units', () => {
  it('cuts CJK runs into bigrams at consecutive positions, words into one unit each', () => {
    expect(unitsOf(fold('GPU训练数据 ok'))).toEqual([
      { lexeme: 'gpu', position: 1, kind: 'word' },
      { lexeme: '训练', position: 2, kind: 'gram' },
      { lexeme: '练数', position: 3, kind: 'gram' },
      { lexeme: '数据', position: 4, kind: 'gram' },
      { lexeme: '据', position: 5, kind: 'gram' },
      { lexeme: 'ok', position: 6, kind: 'word' },
    ]);
  });

  it('makes the exact-title key from words only', () => {
    expect(titleKey('  Release   Notes! ')).toBe('release notes');
    expect(titleKey('Café — menu')).toBe('cafe menu');
  });
});

describe('vectors', () => {
  it('weights title words A, their suffixes B, content words C, their suffixes D', () => {
    const { vector, titleVector } = documentVectors('Pages', 'Subpages');
    expect(vector).toContain("'pages':1A,3 "); // weight D is written without its letter
    expect(vector).toContain("'ages':1B");
    expect(vector).toContain("'subpages':3C");
    expect(titleVector).not.toContain('subpages');
  });

  it('quotes lexemes so that no text is tsvector syntax', () => {
    expect(documentVectors("it's", '').vector).toContain("'it'");
  });
});

describe('queries', () => {
  it('ANDs words, prefixes the last, keeps common words', () => {
    expect(parseQuery('to be').tsquery).toBe("'to' & 'be':*");
    expect(parseQuery('the').tsquery).toBe("'the':*");
  });

  it('reads phrases, exclusions and or', () => {
    expect(parseQuery('"green apples" -pears or figs').tsquery).toBe("('green' <1> 'apples') & !'pears' | 'figs':*");
  });

  it('turns a CJK run into a phrase of its bigrams', () => {
    expect(parseQuery('训练数据').tsquery).toBe("('训练' <1> '练数' <1> '数据':*)");
  });

  it('has nothing to search for punctuation, emptiness or only exclusions', () => {
    for (const q of ['', '   ', '&|!:*()', "'", '"', '-word', '-"a b"']) expect(parseQuery(q).tsquery, q).toBeNull();
  });

  it('gives the folded terms to mark', () => {
    expect(parseQuery('Café -menu "Crème brûlée"').terms).toEqual(['cafe', 'creme', 'brulee']);
  });

  it('says whether it excludes something', () => {
    expect(parseQuery('apples -pears').excludes).toBe(true);
    expect(parseQuery('apples pears or "a-b"').excludes).toBe(false);
  });
});

describe('snippets', () => {
  it('escapes everything and turns only the selection characters into marks', () => {
    expect(headlineHtml(`<b>&${START_SEL}x${STOP_SEL}"`)).toBe('&#60;b&#62;&#38;<mark>x</mark>&#34;');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('marks folded terms inside words on the original text', () => {
    expect(markTerms('Our Café & Subpages', ['cafe', 'pages'])).toBe(
      'Our <mark>Café</mark> &#38; Sub<mark>pages</mark>',
    );
    expect(markTerms('大量训练数据', ['训练'])).toBe('大量<mark>训练</mark>数据');
  });

  it('cuts a window around a place, never inside a surrogate pair', () => {
    const text = `${'😀'.repeat(200)}needle${'😀'.repeat(200)}`;
    const window = windowAround(text, 400, 60);
    expect(window).toContain('needle');
    expect(window).not.toMatch(/^(…\s)?[\udc00-\udfff]/);
    expect(window).not.toMatch(/[\ud800-\udbff](\s…)?$/);
  });

  it('finds the first whole word of any term, else the first place inside a word', () => {
    const text = 'The other theme: then the theory.';
    expect(firstMatch(text, ['the'])).toBe(0);
    expect(firstMatch('Another theme, and the end.', ['the'])).toBe(19);
    expect(firstMatch('Another theme.', ['the'])).toBe(3);
    expect(firstMatch('Nothing here.', ['absent'])).toBe(-1);
    // The earliest whole word of all the terms.
    expect(firstMatch('budget of the team, then plan', ['plan', 'team'])).toBe(14);
  });

  it('finds folded terms on the original text: accents, case, CJK runs', () => {
    const accented = 'Menu du jour. Notre CAFÉ sert une crème brûlée.';
    expect(firstMatch(accented, ['cafe'])).toBe(accented.indexOf('CAFÉ'));
    expect(firstMatch('Straße und Weg: strasse', ['strasse'])).toBe(0);
    const cjk = '深度学习模型需要大量训练数据';
    expect(firstMatch(cjk, ['训练'])).toBe(cjk.indexOf('训练'));
  });

  it('makes a marked, escaped snippet around the first match, or none', () => {
    const text = `${'filler words here. '.repeat(40)}The <office> & "co" moves. ${'more filler. '.repeat(40)}`;
    const snippet = snippetOf(text, ['office']) ?? '';
    expect(snippet).toContain('&#60;<mark>office</mark>&#62; &#38; &#34;co&#34; moves');
    expect(snippet.length).toBeLessThan(400);
    expect(snippetOf(text, ['absent'])).toBeNull();
  });
});
