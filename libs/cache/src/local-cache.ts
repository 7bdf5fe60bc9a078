import { LRUCache } from 'lru-cache';
import { SingleFlight } from './single-flight.js';

export interface LocalCacheOptions<V> {
  /** Entries kept at most; beyond it the least recently used goes first. Needed unless `maxBytes` bounds the cache. */
  maxEntries?: number;
  /**
   * How long an entry is kept unless `set` says otherwise; without it, until evicted or deleted.
   * Zero or less keeps nothing (a cache turned off).
   */
  ttlMs?: number;
  /** A budget over the bytes of every entry (the least recently used go first); needs `sizeOf`. */
  maxBytes?: number;
  /** An entry's bytes, counted against `maxBytes` (at least 1). */
  sizeOf?: (value: V, key: string) => number;
}

export interface SetOptions {
  /** This entry's time to live; zero or less keeps nothing (a token about to expire is not worth keeping). */
  ttlMs?: number;
}

/**
 * A bounded in-memory cache of this process (lru-cache underneath): entries expire after a time
 * to live and the least recently used go first beyond an entry count or a byte budget. Only a
 * cache: every replica keeps its own, and losing it costs a recomputation, nothing else. Time is
 * the wall clock (`Date.now`), read at each check.
 */
export class LocalCache<V extends {}> {
  private readonly entries: LRUCache<string, V>;
  private readonly loads = new SingleFlight<V | undefined>();
  private readonly ttlMs: number | undefined;
  private readonly countsBytes: boolean;

  constructor(options: LocalCacheOptions<V>) {
    const { maxEntries, ttlMs, maxBytes, sizeOf } = options;
    this.ttlMs = ttlMs;
    this.countsBytes = maxBytes !== undefined;
    if ((maxBytes === undefined) !== (sizeOf === undefined))
      throw new Error('LocalCache: maxBytes and sizeOf go together');
    if (maxEntries === undefined && maxBytes === undefined) throw new Error('LocalCache: needs maxEntries or maxBytes');
    this.entries = new LRUCache<string, V>({
      max: maxEntries,
      // lru-cache reads a ttl of 0 as "no expiry": a non-positive one never reaches it (see set).
      ttl: ttlMs !== undefined && ttlMs > 0 ? ttlMs : undefined,
      maxSize: maxBytes,
      sizeCalculation: sizeOf && ((value, key) => Math.max(1, Math.ceil(sizeOf(value, key)))),
      // The wall clock, read at every check: no timer per millisecond, and fake Date clocks in tests apply.
      perf: { now: () => Date.now() },
      ttlResolution: 0,
      // One of max or maxSize is set (checked above): what lru-cache's union of option shapes asks.
    } as LRUCache.Options<string, V, unknown>);
  }

  /** The live entry under `key` (made the most recently used), or undefined. */
  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** The live entry under `key` without touching its recency. */
  peek(key: string): V | undefined {
    return this.entries.peek(key);
  }

  /**
   * Keeps `value` under `key` (the most recently used). Setting it again re-counts its bytes, for
   * an entry that grew since.
   */
  set(key: string, value: V, options: SetOptions = {}): void {
    const ttlMs = options.ttlMs ?? this.ttlMs;
    if (ttlMs !== undefined && ttlMs <= 0) {
      this.entries.delete(key);
      return;
    }
    // lru-cache counts bytes only when a key's value changes: the same (grown) value is put anew.
    if (this.countsBytes && this.entries.peek(key) === value) this.entries.delete(key);
    this.entries.set(key, value, ttlMs === undefined ? undefined : { ttl: ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every entry whose key `matches` (e.g. every entry of one workspace). */
  deleteWhere(matches: (key: string) => boolean): void {
    // Keys first: deleting while lru-cache iterates would skip entries.
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The entry under `key`, or what `load` answers, kept when it is not undefined (undefined: nothing
   * to remember, e.g. an id that may exist later). Concurrent misses for one key share one load.
   */
  async getOrLoad<L extends V | undefined>(key: string, load: () => Promise<L>, options?: SetOptions): Promise<V | L> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    return this.loads.run(key, async () => {
      const value = await load();
      if (value !== undefined) this.set(key, value, options);
      return value;
    }) as Promise<L>;
  }
}
