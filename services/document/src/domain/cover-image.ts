import { invalidField } from '@wiki/http';

/**
 * coverImageUrl: an absolute http(s) URL, or a same-origin path starting with a single "/" (such
 * as /api/v1/attachments/file?key=…); null clears it. Everything else (javascript:, data:, a
 * protocol-relative //host, a relative path) is refused with a 400: the URL ends up in an
 * <img src> or a CSS background of every client. Whitespace and control characters are refused
 * as well, since browsers drop some of them (tab, newline) and "/<tab>/evil.test" would become
 * protocol-relative. The length limit is in the JSON schema (COVER_URL_MAX).
 */
const ABSOLUTE = /^https?:\/\//i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

export function isAcceptableCoverUrl(value: string): boolean {
  if (UNSAFE_CHARS.test(value)) return false;
  if (value.startsWith('/')) return value.length === 1 || (value[1] !== '/' && value[1] !== '\\');
  if (!ABSOLUTE.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Throws a 400 naming coverImageUrl unless the value is null, absent or acceptable. */
export function checkCoverImageUrl(value: string | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!isAcceptableCoverUrl(value))
    throw invalidField('coverImageUrl', 'must be an absolute http(s) URL or a path starting with a single "/"');
}
