import { hash } from 'node:crypto';

/** A cache key from several values: parts that concatenate alike ('ab'+'c', 'a'+'bc') stay apart. */
export function keyOf(...parts: Array<string | null | undefined>): string {
  let key = '';
  for (const part of parts) key += `${part ?? '\u0000'}\u0001`;
  return key;
}

/**
 * A cache key for a secret (a token or an API key) that never keeps the secret itself. One-shot
 * `crypto.hash`: a Hash object per call cost more than the rest of a cached authentication.
 */
export function hashOf(...parts: Array<string | null | undefined>): string {
  return hash('sha256', keyOf(...parts), 'base64url');
}
