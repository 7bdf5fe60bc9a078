import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { LocalCache } from '@wiki/cache';

const gzip = promisify(gzipCallback);

/** Answers smaller than this are sent as they are: compressing them saves less than it costs. */
export const GZIP_FROM_BYTES = 32 * 1024;

/** An answer as it is sent: the JSON body, gzipped when the client takes gzip and the answer is large. */
export interface Answer {
  body: Buffer;
  gzipped: boolean;
}

/** What a build makes: the body, and what the caller wants to know about it besides (e.g. that it is empty). */
export interface Built<Meta> {
  body: Buffer;
  meta: Meta;
}

interface Entry<Meta> {
  version: number;
  built: Promise<Built<Meta>>;
  /** Made on the first request that takes gzip, then kept with the answer. */
  gzipped?: Promise<Buffer>;
  /** Counted once the body (and later the gzipped body) is made. */
  bytes: number;
}

/**
 * Serialized answers remembered by key with the workspace version they were built under
 * (migrations/0007_tree_versions.sql: bumped by every write to the workspace's documents, in the
 * writing statement). The caller reads the version first, then asks here: an answer of that
 * version or a later one is reused as it is; otherwise it is built (rows read after the version
 * was, so they are at least that new) and kept, least recently used forgotten first beyond
 * `maxBytes`. Requests for the same key and version that arrive while it is being built wait for
 * that build instead of starting their own.
 */
export function rememberedAnswers<Meta>(maxBytes: number) {
  const entries = new LocalCache<Entry<Meta>>({ maxBytes, sizeOf: (entry) => entry.bytes });

  function forget(key: string, entry: Entry<Meta>) {
    if (entries.peek(key) === entry) entries.delete(key);
  }
  /** Counts bytes of an entry still held: setting it again re-counts it, and the least recently used make room. */
  function count(key: string, entry: Entry<Meta>, more: number) {
    if (entries.peek(key) !== entry) return;
    entry.bytes += more;
    entries.set(key, entry);
  }

  function entryFor(key: string, version: number, build: () => Promise<Built<Meta>>): Entry<Meta> {
    const known = entries.get(key);
    if (known && known.version >= version) return known;
    const entry: Entry<Meta> = { version, built: build(), bytes: 0 };
    entries.set(key, entry);
    entry.built.then(
      ({ body }) => count(key, entry, body.length),
      () => forget(key, entry), // the next request builds it again
    );
    return entry;
  }

  /** The answer under `key` as of `version` (or later), built by `build` when none is held. */
  return async function answer(
    key: string,
    version: number,
    build: () => Promise<Built<Meta>>,
    acceptsGzip = false,
  ): Promise<Answer & { meta: Meta }> {
    const entry = entryFor(key, version, build);
    const { body, meta } = await entry.built;
    if (!acceptsGzip || body.length < GZIP_FROM_BYTES) return { body, gzipped: false, meta };
    if (!entry.gzipped) {
      entry.gzipped = gzip(body);
      const zipping = entry.gzipped;
      zipping.then(
        (zipped) => count(key, entry, zipped.length),
        () => {
          if (entry.gzipped === zipping) entry.gzipped = undefined; // tried again by the next request
        },
      );
    }
    return { body: await entry.gzipped, gzipped: true, meta };
  };
}
