import { foldWithOrigin } from './fold.js';

/**
 * Snippets are HTML: the text escaped, the matches wrapped in `<mark>` and nothing else. ts_headline
 * is asked to mark with two control characters the stored text never holds (the index removes them),
 * so escaping cannot touch a mark and a mark cannot come from the text.
 */
export const START_SEL = '\u0001';
export const STOP_SEL = '\u0002';

/** The text as it is stored: the two selection characters removed. */
export const withoutSelectors = (text: string) => text.replaceAll(START_SEL, ' ').replaceAll(STOP_SEL, ' ');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** True when ts_headline marked something. */
export const hasSelection = (headline: string) => headline.includes(START_SEL);

/** A ts_headline answer as HTML. */
export function headlineHtml(headline: string): string {
  return escapeHtml(headline).replaceAll(START_SEL, '<mark>').replaceAll(STOP_SEL, '</mark>');
}

/** Printable ASCII and whitespace fold to their lower case, character for character. */
const PLAIN_ASCII = /^[\t\n\r -~]*$/;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The folded text and, for an index in it, the index in `text` of the character it came from. */
function foldedForSearch(text: string): { folded: string; originOf: (i: number) => number } {
  if (PLAIN_ASCII.test(text)) return { folded: text.toLowerCase(), originOf: (i) => i };
  const { folded, origin } = foldWithOrigin(text);
  return { folded, originOf: (i) => origin[i] };
}

/**
 * Marks every occurrence of the folded `terms` in `text` (accents and case folded, anywhere in a
 * word: what the index matched and ts_headline cannot see, such as `pages` in `Subpages` or `训练`
 * inside a sentence of Chinese), as HTML.
 */
export function markTerms(text: string, terms: readonly string[]): string {
  const { folded, originOf } = foldedForSearch(text);
  const ranges: Array<[number, number]> = [];
  for (const term of terms) {
    if (!term) continue;
    for (let at = folded.indexOf(term); at !== -1; at = folded.indexOf(term, at + term.length)) {
      ranges.push([originOf(at), originOf(at + term.length)]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let html = '';
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (start < cursor) continue; // inside a longer match already marked
    html += `${escapeHtml(text.slice(cursor, start))}<mark>${escapeHtml(text.slice(start, end))}</mark>`;
    cursor = end;
  }
  return html + escapeHtml(text.slice(cursor));
}

/** Where a window of about `size` characters of text around `at` (0-based) starts and ends, cut at spaces where there are some. */
function windowBounds(text: string, at: number, size: number): { start: number; end: number } {
  let start = Math.max(0, at - Math.floor(size / 3));
  let end = Math.min(text.length, start + size);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > at) end = space;
  }
  // Never cut a surrogate pair in half.
  if (start > 0 && /[\udc00-\udfff]/.test(text[start] ?? '')) start -= 1;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end += 1;
  return { start, end };
}

/** A window of about `size` characters of text around `at` (0-based), cut at spaces where there are some. */
export function windowAround(text: string, at: number, size = 200): string {
  const { start, end } = windowBounds(text, at, size);
  return `${start > 0 ? '… ' : ''}${text.slice(start, end)}${end < text.length ? ' …' : ''}`;
}

/**
 * Where in `text` the first of the folded `terms` sits (a UTF-16 index), or -1: the first whole-word
 * occurrence of any term, else the first occurrence inside a word (what the index matches too: the
 * end of a word, any part of the last query word, a run of CJK text).
 */
export function firstMatch(text: string, terms: readonly string[]): number {
  const { folded, originOf } = foldedForSearch(text);
  const isWordAt = (i: number) => i >= 0 && i < folded.length && WORD_CHAR.test(folded[i]);
  let whole = -1;
  let inside = -1;
  for (const term of terms) {
    if (!term) continue;
    for (let at = folded.indexOf(term); at !== -1; at = folded.indexOf(term, at + 1)) {
      if (whole !== -1 && at > whole) break;
      if (inside === -1 || at < inside) inside = at;
      if (!isWordAt(at - 1) && !isWordAt(at + term.length)) {
        whole = at;
        break;
      }
    }
  }
  const best = whole !== -1 ? whole : inside;
  return best === -1 ? -1 : originOf(best);
}

/** The snippet of a text around its first match of the folded terms, marked; null when none is in it. */
export function snippetOf(text: string, terms: readonly string[]): string | null {
  const at = firstMatch(text, terms);
  if (at === -1) return null;
  // Marked before the ellipses are added: a window of plain ASCII is then marked without folding.
  const { start, end } = windowBounds(text, at, 200);
  return `${start > 0 ? '… ' : ''}${markTerms(text.slice(start, end), terms)}${end < text.length ? ' …' : ''}`;
}
