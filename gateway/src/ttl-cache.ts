import { hash } from 'node:crypto';

/**
 * A bounded in-memory cache whose entries expire. Only a cache: every replica keeps its own, and
 * losing it costs a recomputation, nothing else. When full, the oldest entry is dropped (a Map
 * iterates in insertion order).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until: now + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Runs `load` once per key at a time: concurrent callers for the same key share one promise
 * (a user's first burst of parallel requests makes one find-or-create call, not ten).
 */
export class SingleFlight<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = load().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}

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
