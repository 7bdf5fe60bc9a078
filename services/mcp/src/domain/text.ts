import { randomUUID } from 'node:crypto';

/**
 * Sizes and shapes of what the tools answer. An assistant's context is finite: every answer is
 * capped, and a cut answer says how to read on.
 */

/** No tool answer carries more than this many characters of document text. */
export const RESULT_MAX_CHARS = 100_000;
/** Items a list tool answers at most per call (and by default). */
export const LIST_MAX = 100;

/** Paragraph blocks of `text`: split at blank lines (lines holding only spaces count as blank). */
export function paragraphsOf(text: string): Array<Record<string, unknown>> {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((part) => part.replace(/^\n+|\n+$/g, ''))
    .filter((part) => part.trim() !== '')
    .map((part) => ({
      id: randomUUID(),
      type: 'paragraph',
      props: {},
      content: [{ type: 'text', text: part, styles: {} }],
      children: [],
    }));
}

export interface TextWindow {
  text: string;
  offset: number;
  /** Characters in the whole text. */
  totalChars: number;
  /** Where the next call should start, or null when this window reaches the end. */
  nextOffset: number | null;
}

/**
 * A window of `text` from `offset`, at most `limit` characters (and never more than the result
 * cap). Offsets count UTF-16 code units, as JavaScript strings do; a window never ends inside a
 * surrogate pair.
 */
export function windowOf(text: string, offset = 0, limit = RESULT_MAX_CHARS): TextWindow {
  const start = Math.min(Math.max(0, offset), text.length);
  let end = Math.min(text.length, start + Math.min(Math.max(1, limit), RESULT_MAX_CHARS));
  if (end < text.length && end > start && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return {
    text: text.slice(start, end),
    offset: start,
    totalChars: text.length,
    nextOffset: end < text.length ? end : null,
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

export interface ListPage<T> {
  items: T[];
  total: number;
  offset: number;
  /** Items after this page; call again with `offset: nextOffset` to read them. */
  remaining: number;
  nextOffset: number | null;
}

/** One page of a list: at most `limit` (capped at LIST_MAX) items from `offset`. */
export function pageOf<T>(all: readonly T[], offset = 0, limit = LIST_MAX): ListPage<T> {
  const start = Math.min(Math.max(0, offset), all.length);
  const end = Math.min(all.length, start + Math.min(Math.max(1, limit), LIST_MAX));
  return {
    items: all.slice(start, end),
    total: all.length,
    offset: start,
    remaining: all.length - end,
    nextOffset: end < all.length ? end : null,
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function entity(match: string, name: string): string {
  if (name.startsWith('#')) {
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  }
  return ENTITIES[name] ?? match;
}

/** The search service's snippet (HTML-escaped, terms in <mark>) as plain text for an assistant. */
export function snippetText(snippet: string): string {
  return snippet.replace(/<\/?mark>/g, '').replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-z]+);/g, entity);
}
