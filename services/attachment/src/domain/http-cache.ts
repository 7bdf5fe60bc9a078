import type { ByteRange } from '@wiki/storage';

/** A strong ETag from the content's SHA-256 (the same bytes have the same tag on every replica and driver). */
export const etagOf = (sha256: string) => `"${sha256.slice(0, 32)}"`;

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * What a `Range` header asks of a body of `size` bytes (RFC 9110 14.2). One range of bytes is
 * served; several ranges, other units or a malformed header are answered with the whole body,
 * which the standard allows. `If-Range` with another validator than `etag` also gets the whole.
 */
export function rangeOf(header: string | undefined, size: number, ifRange?: string, etag?: string): RangeAnswer {
  if (!header) return { kind: 'whole' };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // A suffix: the last N bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'whole' }; // invalid: ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}
