/**
 * The MIME type of a file from its first bytes (ARCHITECTURE 5.9: never the client's claim).
 * A short magic-number table for what a wiki stores, plus the text formats browsers would run
 * (HTML, SVG, XML), found the way the WHATWG MIME sniffing standard finds HTML: after leading
 * white space and a BOM, case-insensitively. What is recognised as nothing is text/plain when it
 * is valid UTF-8 without control bytes, else application/octet-stream.
 *
 * The order matters for polyglots: a file that starts like a GIF is a GIF, whatever HTML follows;
 * it is then served as an image (nosniff, sandboxed), which a browser never runs as a page.
 */

/** How many leading bytes sniffing and image measuring look at. */
export const SNIFF_BYTES = 64 * 1024;

interface Magic {
  mime: string;
  offset?: number;
  bytes: number[];
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const MAGIC: Magic[] = [
  { mime: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mime: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mime: 'image/gif', bytes: ascii('GIF87a') },
  { mime: 'image/gif', bytes: ascii('GIF89a') },
  { mime: 'image/bmp', bytes: ascii('BM') },
  { mime: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { mime: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { mime: 'image/x-icon', bytes: [0x00, 0x00, 0x01, 0x00] },
  { mime: 'application/pdf', bytes: ascii('%PDF-') },
  { mime: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { mime: 'application/zip', bytes: [0x50, 0x4b, 0x05, 0x06] },
  { mime: 'application/gzip', bytes: [0x1f, 0x8b, 0x08] },
  { mime: 'application/x-7z-compressed', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { mime: 'application/vnd.rar', bytes: ascii('Rar!\u001a\u0007') },
  { mime: 'application/x-tar', offset: 257, bytes: ascii('ustar') },
  { mime: 'audio/mpeg', bytes: ascii('ID3') },
  { mime: 'audio/flac', bytes: ascii('fLaC') },
  { mime: 'audio/ogg', bytes: ascii('OggS') },
  { mime: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { mime: 'application/wasm', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { mime: 'font/woff', bytes: ascii('wOFF') },
  { mime: 'font/woff2', bytes: ascii('wOF2') },
  { mime: 'application/vnd.ms-office', bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] },
];

function startsWith(head: Uint8Array, bytes: number[], offset = 0): boolean {
  if (head.length < offset + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[offset + i] !== bytes[i]) return false;
  return true;
}

/** RIFF containers (WebP, WAV, AVI) and ISO media (AVIF, HEIC, MP4, MOV) name their kind inside. */
function container(head: Uint8Array): string | undefined {
  const tag = (at: number) => String.fromCharCode(...head.subarray(at, at + 4));
  if (head.length >= 12 && tag(0) === 'RIFF') {
    const kind = tag(8);
    if (kind === 'WEBP') return 'image/webp';
    if (kind === 'WAVE') return 'audio/wav';
    if (kind === 'AVI ') return 'video/x-msvideo';
  }
  if (head.length >= 12 && tag(4) === 'ftyp') {
    const brand = tag(8);
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
    if (['heic', 'heix', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
    if (brand === 'qt  ') return 'video/quicktime';
    if (brand.startsWith('M4A')) return 'audio/mp4';
    return 'video/mp4';
  }
  // MPEG audio without an ID3 tag: a frame sync.
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) {
    return 'audio/mpeg';
  }
  return undefined;
}

/** Tags that make the WHATWG sniffer call a resource HTML (followed by a space or `>`). */
const HTML_TAGS = [
  '!doctype html',
  'html',
  'head',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'body',
  'br',
  'p',
  '!--',
];

function markup(head: Uint8Array): string | undefined {
  let start = 0;
  if (startsWith(head, [0xef, 0xbb, 0xbf])) start = 3;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head.subarray(start, start + 4096));
  const trimmed = text.replace(/^[\t\n\f\r ]+/, '').toLowerCase();
  if (!trimmed.startsWith('<')) return undefined;
  // SVG documents may open with an XML declaration, comments and a doctype before <svg.
  if (
    /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>/]/.test(trimmed)
  ) {
    return 'image/svg+xml';
  }
  for (const tag of HTML_TAGS) {
    const open = `<${tag}`;
    if (trimmed.startsWith(open)) {
      const next = trimmed.charAt(open.length);
      if (tag === '!--' || next === ' ' || next === '>' || next === '\t' || next === '\n' || next === '/') {
        return 'text/html';
      }
    }
  }
  if (trimmed.startsWith('<?xml')) return 'application/xml';
  return undefined;
}

function isText(head: Uint8Array): boolean {
  for (const byte of head) {
    // Control bytes other than tab, line feed, form feed, carriage return and escape mean binary.
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) return false;
  }
  try {
    // A multi-byte character cut at the end of the head is fine; drop up to three trailing bytes.
    new TextDecoder('utf-8', { fatal: true }).decode(trimPartialUtf8(head));
    return true;
  } catch {
    return false;
  }
}

function trimPartialUtf8(head: Uint8Array): Uint8Array {
  let end = head.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const byte = head[end - i];
    if ((byte & 0xc0) === 0xc0) {
      // The lead byte of the last character: keep it only if the character is complete.
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      if (i < needed) end -= i;
      break;
    }
    if ((byte & 0x80) === 0) break;
  }
  return head.subarray(0, end);
}

/** The MIME type of a file whose first bytes are `head` (at most SNIFF_BYTES of them are read). */
export function sniffMime(head: Uint8Array, totalSize: number = head.length): string {
  if (totalSize === 0 || head.length === 0) return 'application/octet-stream';
  for (const magic of MAGIC) if (startsWith(head, magic.bytes, magic.offset)) return magic.mime;
  return (
    container(head) ??
    markup(head) ??
    (isText(head.subarray(0, SNIFF_BYTES)) ? 'text/plain' : 'application/octet-stream')
  );
}

/** Raster images a browser shows inline: the only types served with `Content-Disposition: inline`. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/avif',
  'image/x-icon',
]);

export const isInlineImage = (mime: string) => INLINE_IMAGE_TYPES.has(mime);
