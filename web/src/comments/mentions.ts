/**
 * Mentions in comment content (ARCHITECTURE 5.6): `@[Display Name](<user id>)`. The comment service
 * reads them with the same pattern (services/comment/src/domain/mentions.ts; the app is bundled on
 * its own and cannot import it). A token escaped with a backslash, or of any other shape, is text.
 */
const TOKEN =
  /@\[([^[\]\\\r\n]{1,200})\]\(([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\)/g;

export interface Mention {
  userId: string;
  name: string;
}

export type Segment = { kind: 'text'; text: string } | ({ kind: 'mention' } & Mention);

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** The content as text and mentions, in order; what is not a well-formed token stays text. */
export function segmentsOf(content: string): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of content.matchAll(TOKEN)) {
    const name = match[1].trim();
    if (isEscaped(content, match.index) || name === '') continue;
    if (match.index > last) segments.push({ kind: 'text', text: content.slice(last, match.index) });
    segments.push({ kind: 'mention', name, userId: match[2].toLowerCase() });
    last = match.index + match[0].length;
  }
  if (last < content.length) segments.push({ kind: 'text', text: content.slice(last) });
  return segments;
}

/** A display name the token can hold: no brackets, backslashes or line breaks, at most 200 characters. */
export function tokenName(name: string): string {
  const cleaned = name
    .replace(/[[\]\\\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200)
    .trim();
  return cleaned || 'Someone';
}

export const mentionToken = (mention: Mention) => `@[${tokenName(mention.name)}](${mention.userId})`;

/**
 * What the comment box shows: each token as `@Name`, with the mentions it stood for, so that an
 * edited comment keeps them when it is written back with `contentOf`.
 */
export function draftOf(content: string): { text: string; mentions: Mention[] } {
  const mentions: Mention[] = [];
  let text = '';
  for (const segment of segmentsOf(content)) {
    if (segment.kind === 'text') text += segment.text;
    else {
      text += `@${segment.name}`;
      const { userId, name } = segment;
      if (!mentions.some((m) => m.userId === userId && m.name === name)) mentions.push({ userId, name });
    }
  }
  return { text, mentions };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The content to send: every `@Name` of a person picked from the list becomes their token. Longer
 * names go first (a picked "Ada Lovelace" wins over a picked "Ada"); `@Name` glued to a letter
 * before or after it (an e-mail address, a longer word) stays text.
 */
export function contentOf(text: string, mentions: readonly Mention[]): string {
  const byLength = [...mentions].sort((a, b) => tokenName(b.name).length - tokenName(a.name).length);
  let result = text;
  for (const mention of byLength) {
    const name = tokenName(mention.name);
    const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_\\\\])@${escapeRegExp(name)}(?![\\p{L}\\p{N}_\\]])`, 'gu');
    result = result.replace(pattern, (_all, before: string) => `${before}${mentionToken(mention)}`);
  }
  return result;
}

/**
 * The `@query` being typed just before the caret, if any: an `@` at the start or after a space or
 * an opening bracket, then up to 40 characters without a line break or a `[`.
 */
export function mentionQueryAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at < 0 || caret - at > 41) return null;
  if (at > 0 && !/[\s([{"'“‘]/.test(before[at - 1])) return null;
  const query = before.slice(at + 1);
  if (/[\r\n[\]]/.test(query) || /^\s/.test(query) || /\s{2}/.test(query)) return null;
  return { start: at, query };
}
