/** Longest file name kept (before the extension), in characters. */
const NAME_MAX = 120;

/**
 * The file name a title gives: characters a file system or a header cannot take (controls,
 * path separators, quotes, Windows' reserved ones) become `_`, dots at the ends go (no hidden or
 * extension-less tricks), and an empty result is `document`.
 */
export function fileNameOf(title: string): string {
  const cleaned = Array.from(
    title
      .normalize('NFC')
      .replace(/\p{Cc}|[\u2028\u2029/\\:*?"<>|]/gu, '_')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+|\.+$/g, ''),
  )
    .slice(0, NAME_MAX)
    .join('')
    .trim();
  return cleaned || 'document';
}

/** RFC 5987 percent-encoding: encodeURIComponent leaves `'()*` as they are, which the header grammar does not take. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `attachment; filename*=UTF-8''<title>.<ext>` (ARCHITECTURE 5.10), safe for any title. */
export function contentDisposition(title: string, extension: string): string {
  return `attachment; filename*=UTF-8''${encodeRfc5987(`${fileNameOf(title)}.${extension}`)}`;
}
