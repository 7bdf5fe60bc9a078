/**
 * Mentions in comment content (ARCHITECTURE 5.6): `@[Display Name](<user id>)`, the user's id in
 * the parentheses without angle brackets, e.g. `@[Ada Lovelace](7c9e6679-7425-40de-944b-e07fc1f90ae7)`.
 *
 * Anything that is not exactly that shape is plain text, not a mention: a missing bracket or
 * parenthesis, an id that is not a UUID, brackets nested inside the display name, a blank name,
 * or a token escaped with a backslash (`\@[Ada](…)`, the way Markdown escapes a literal).
 */
export interface Mention {
  userId: string;
  displayName: string;
}

/** The most characters a comment's content has (the API refuses more: routes/schemas.ts). */
export const CONTENT_MAX_CHARS = 10_000;

/** The most distinct users one comment can mention (bounds the membership look-ups it causes). */
export const MAX_MENTIONS = 50;

const MAX_NAME_LENGTH = 200;
// The display name may hold neither brackets nor backslashes nor line breaks: each of those makes
// the token ambiguous, so the whole token is treated as text.
const TOKEN =
  /@\[([^[\]\\\r\n]{1,200})\]\(([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\)/g;

/** True when the character at `index` is preceded by an odd number of backslashes. */
function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** Every well-formed mention in order of first appearance, one per user (ids in lower case). */
export function parseMentions(content: string): Mention[] {
  const seen = new Set<string>();
  const mentions: Mention[] = [];
  for (const match of content.matchAll(TOKEN)) {
    const [, rawName, rawId] = match;
    if (isEscaped(content, match.index)) continue;
    const displayName = rawName.trim();
    if (displayName === '' || displayName.length > MAX_NAME_LENGTH) continue;
    const userId = rawId.toLowerCase();
    if (seen.has(userId)) continue;
    seen.add(userId);
    mentions.push({ userId, displayName });
  }
  return mentions;
}

/**
 * The ids of the users a comment mentions, without its author, at most MAX_MENTIONS of them.
 * Whether they are members of the workspace is checked by the caller.
 */
export function mentionedUserIds(content: string, authorId: string): string[] {
  const author = authorId.toLowerCase();
  return parseMentions(content)
    .map((m) => m.userId)
    .filter((id) => id !== author)
    .slice(0, MAX_MENTIONS);
}

/** Users mentioned in the new content who were not mentioned before an edit. */
export function newlyMentioned(before: readonly string[], after: readonly string[]): string[] {
  const old = new Set(before);
  return after.filter((id) => !old.has(id));
}

/**
 * The content as a search index shows and matches it (comment events, GET /internal/comments/texts):
 * each well-formed mention as `@Display Name`, whatever else as written, at most CONTENT_MAX_CHARS
 * characters (already true of content the API took; the cut never splits a character).
 */
export function searchableText(content: string): string {
  const text = content.replace(TOKEN, (token: string, rawName: string, _id: string, index: number) => {
    const displayName = rawName.trim();
    return isEscaped(content, index) || displayName === '' ? token : `@${displayName}`;
  });
  if (text.length <= CONTENT_MAX_CHARS) return text;
  // Counted in code points, as the API's limit is.
  return Array.from(text).slice(0, CONTENT_MAX_CHARS).join('');
}
