// Search snippets are HTML-escaped text whose only markup is <mark>…</mark> (ARCHITECTURE 5.8).
// They are never given to the DOM as HTML: they are cut into text and marked parts, the escapes
// are turned back into characters, and React renders each part as text.

export interface SnippetPart {
  text: string;
  marked: boolean;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi;

/** `&lt;img&gt;` → `<img>`: the escapes a snippet may hold, as characters (unknown ones stay as written). */
export function unescapeHtml(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The snippet as text and marked parts, in order; empty parts are left out. */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let marked = false;
  for (const piece of snippet.split(/(<\/?mark>)/i)) {
    const tag = piece.toLowerCase();
    if (tag === '<mark>') marked = true;
    else if (tag === '</mark>') marked = false;
    else if (piece) parts.push({ text: unescapeHtml(piece), marked });
  }
  return parts;
}
