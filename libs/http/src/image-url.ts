/**
 * The one rule for image URLs that users or identity providers give us and every client then puts
 * into an <img src> or a CSS background (a document's coverImageUrl, a user's avatarUrl): an
 * absolute http(s) URL, or a same-origin path starting with a single "/" (such as
 * /api/v1/attachments/file?key=…). Everything else (javascript:, data:, a protocol-relative
 * //host, a relative path) is refused. Whitespace and control characters are refused as well,
 * since browsers drop some of them (tab, newline) and "/<tab>/evil.test" would become
 * protocol-relative.
 */

/** The longest image URL kept (also the JSON schema limit of the fields that take one). */
export const IMAGE_URL_MAX = 2048;

const ABSOLUTE = /^https?:\/\//i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

export interface ImageUrlRule {
  /** Whether a same-origin path ("/…") is acceptable; false for URLs from outside (an identity provider's). */
  allowPath?: boolean;
}

export function isAcceptableImageUrl(value: string, rule: ImageUrlRule = {}): boolean {
  if (value.length > IMAGE_URL_MAX || UNSAFE_CHARS.test(value)) return false;
  if (value.startsWith('/')) {
    if (rule.allowPath === false) return false;
    return value.length === 1 || (value[1] !== '/' && value[1] !== '\\');
  }
  if (!ABSOLUTE.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
