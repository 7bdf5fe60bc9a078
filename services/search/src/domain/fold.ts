/**
 * Accent and case folding shared by indexing, querying and snippet marking, so that the three
 * agree character for character: `Café` and `cafe` fold to the same text, `ＡＢＣ` (full width)
 * to `abc`. Chinese, Japanese and Korean characters are kept as they are: their decompositions
 * (kana voicing marks, Hangul jamo) change the word, not its accent.
 */

/** Letters that decomposition does not split into a base letter and a mark. */
const SPECIAL: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ı: 'i',
  þ: 'th',
};

const MARKS = /\p{M}/gu;

/** True for characters written without spaces between words (they are indexed as n-grams). */
export function isCjk(ch: string): boolean {
  return CJK.test(ch);
}

/** One character written without spaces between words (Han, kana, Hangul, the long vowel mark). */
export const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc';
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');

const cache = new Map<string, string>();

/** The folded form of one character (a code point); may be empty (a lone mark) or longer (ß). */
export function foldChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
  const known = cache.get(ch);
  if (known !== undefined) return known;
  let folded: string;
  if (isCjk(ch)) folded = ch;
  else {
    const lower = ch.toLowerCase();
    folded = SPECIAL[lower] ?? lower.normalize('NFKD').replace(MARKS, '').toLowerCase();
  }
  if (cache.size < 20_000) cache.set(ch, folded);
  return folded;
}

const NEEDS_FOLDING = /[A-Z]|[^\t\n\r -~]/gu;

/** Folds a whole text (printable ASCII other than capitals is left as it is, without a call per character). */
export function fold(text: string): string {
  return text.replace(NEEDS_FOLDING, foldChar);
}

/**
 * Folds a text and remembers where each folded character came from: `origin[i]` is the index in
 * `text` (UTF-16) of the character folded character `i` belongs to; `origin[folded.length]` is
 * `text.length`. Used to mark matches found in the folded text on the original one.
 */
export function foldWithOrigin(text: string): { folded: string; origin: number[] } {
  let folded = '';
  const origin: number[] = [];
  let index = 0;
  for (const ch of text) {
    const f = foldChar(ch);
    folded += f;
    for (let i = 0; i < f.length; i++) origin.push(index);
    index += ch.length;
  }
  origin.push(text.length);
  return { folded, origin };
}
