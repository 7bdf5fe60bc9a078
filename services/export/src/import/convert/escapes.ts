/**
 * BlockNote's Markdown parser (0.55) reads backslash escapes of ``\`*_{}[]()#+-.!~|>`` only, and
 * no character references: `\<`, `\&` (what our own export writes for `<` and `&` in text) and
 * `&lt;` came in as typed. Before parsing, the other escaped ASCII punctuation and the common
 * references are swapped for characters of the Private Use Area (U+E000 + the ASCII code), which
 * the parser takes as plain text; after parsing they are swapped back. Code (fenced blocks and
 * code spans) is left alone: there a backslash is a backslash.
 */
const UNHANDLED_ESCAPES = new Set('"$%&\',/:;<=?@^');
const HELD_FROM = 0xe000;
const HELD = /[\ue000-\ue07f]/g;

const hold = (char: string) => String.fromCharCode(HELD_FROM + char.charCodeAt(0));

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const REFERENCE = /^&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));/;
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;

/** The character a reference at the start of `text` stands for (and its length), or null. */
function reference(text: string): { char: string; length: number } | null {
  const match = REFERENCE.exec(text);
  if (!match) return null;
  const code = match[1] ? Number(match[1]) : match[2] ? Number.parseInt(match[2], 16) : -1;
  const char = match[3]
    ? (NAMED[match[3]] as string)
    : code >= 0x20 && code <= 0x10ffff
      ? String.fromCodePoint(code)
      : null;
  if (char === null || (code >= 0xd800 && code <= 0xdfff)) return null;
  return { char: ASCII_PUNCTUATION.test(char) ? hold(char) : char, length: match[0].length };
}

/** One stretch of Markdown outside fenced code. */
function holdInline(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '\\' && i + 1 < text.length) {
      const next = text[i + 1] as string;
      out += UNHANDLED_ESCAPES.has(next) ? hold(next) : `\\${next}`;
      i += 2;
    } else if (char === '`') {
      const run = /^`+/.exec(text.slice(i))?.[0] as string;
      const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
      close.lastIndex = i + run.length;
      const end = close.exec(text);
      const stop = end ? end.index + run.length : i + run.length;
      out += text.slice(i, stop);
      i = stop;
    } else if (char === '&') {
      const found = reference(text.slice(i, i + 12));
      out += found ? found.char : char;
      i += found ? found.length : 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/** The Markdown with the escapes and references BlockNote misses held (see above). */
export function holdEscapes(markdown: string): string {
  const parts: string[] = [];
  let prose: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    const inCode = fence !== null;
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
    }
    if (inCode || marker) {
      if (prose.length > 0) parts.push(holdInline(prose.join('\n')));
      prose = [];
      parts.push(line);
    } else prose.push(line);
  }
  if (prose.length > 0) parts.push(holdInline(prose.join('\n')));
  return parts.join('\n');
}

/** Every string of the parsed blocks with the held characters given back. */
export function releaseEscapes<T>(value: T): T {
  const release = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(HELD, (c) => String.fromCharCode(c.charCodeAt(0) - HELD_FROM));
    if (Array.isArray(v)) return v.map(release);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, release(x)]));
    return v;
  };
  return release(value) as T;
}
