/**
 * Whether a WebP file's image data is lossless (VP8L) rather than lossy (VP8), from its first
 * bytes: the chunks are walked from the RIFF header, into the first frame of an animation.
 */
export function isLosslessWebp(head: Uint8Array): boolean {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  let at = 12; // "RIFF", size, "WEBP"
  while (at + 8 <= bytes.length) {
    const tag = bytes.toString('latin1', at, at + 4);
    if (tag === 'VP8L') return true;
    if (tag === 'VP8 ') return false;
    // A frame's own chunks (ALPH, VP8, VP8L) follow its 16 bytes of position, size and timing.
    if (tag === 'ANMF') {
      at += 8 + 16;
      continue;
    }
    const size = bytes.readUInt32LE(at + 4);
    at += 8 + size + (size % 2);
  }
  return false;
}
