import { fileNameOf } from '../domain/filename.js';

/** Windows refuses these as a file's name, with any extension too (`CON.md`), in any case. */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** Bytes of one name before its suffix and extension: most file systems take 255 per segment. */
const NAME_MAX_BYTES = 200;

/** Cut to at most `max` UTF-8 bytes, never inside a character. */
function cutToBytes(text: string, max: number): string {
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > max) break;
    out += char;
    bytes += size;
  }
  return out;
}

/**
 * A title as one segment of a path that every common file system takes: what `fileNameOf` keeps
 * (no separators, controls, `:*?"<>|`, dots at the ends), without trailing dots or spaces after
 * cutting, at most NAME_MAX_BYTES, and a reserved device name made ordinary (`CON` → `CON_`).
 */
export function safeSegment(title: string): string {
  let name = cutToBytes(fileNameOf(title), NAME_MAX_BYTES).replace(/[. ]+$/, '');
  if (name === '') name = 'document';
  const stem = name.split('.')[0] ?? name;
  if (RESERVED.test(stem.trim())) name = `${stem}_${name.slice(stem.length)}`;
  return name;
}

/**
 * Names among siblings: the first `A` stays `A`, the next `A (2)`, `A (3)`… Compared without case
 * (Windows and macOS do not tell `a` from `A`), and `reserve` keeps names taken by the export
 * itself (the attachments folder) out of reach.
 */
export class SiblingNames {
  private readonly taken = new Set<string>();

  constructor(reserve: readonly string[] = []) {
    for (const name of reserve) this.taken.add(name.toLowerCase());
  }

  claim(base: string): string {
    let name = base;
    for (let n = 2; this.taken.has(name.toLowerCase()); n += 1) name = `${base} (${n})`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}
