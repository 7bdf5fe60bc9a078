import type { Readable } from 'node:stream';

/** A byte range, both ends included (as HTTP counts them). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  key: string;
  size: number;
  lastModified: Date;
}

/**
 * Where files live (ARCHITECTURE 5.9): attachments under `workspaces/`, finished exports under
 * `exports/`. The services only ever talk to this, so the local folder and any S3-compatible store
 * behave the same (one contract suite holds both to it, test/storage-contract.ts).
 *
 * `put` takes the exact size up front: the S3 driver sends one PUT with a known length (the minio
 * client's multipart path, used for streams without a size, is what S3-compatible servers implement
 * least well), and both drivers refuse a body that turns out longer or shorter, so a truncated
 * source never becomes a stored object.
 */
export interface ObjectStorage {
  readonly driver: 'local' | 's3';
  /** Creates the folder or bucket when missing. */
  prepare(): Promise<void>;
  /** Throws when the store cannot be reached (readiness). */
  check(): Promise<void>;
  put(key: string, body: Readable, size: number, contentType: string): Promise<void>;
  /**
   * Stores the file at `path` (of `size` bytes) under `key`. The driver may move the file instead
   * of copying it (the local one does, within one file system): the caller removes `path`
   * afterwards if it is still there.
   */
  putFile(key: string, path: string, size: number, contentType: string): Promise<void>;
  /** The object's bytes (or `range` of them), or null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Every object under `prefix` (all when empty), in no particular order, read as the caller reads:
   * a page of keys at a time (S3: 1,000 per request; local: one directory at a time), never
   * the whole listing in memory. The caller may delete what it was given while it goes on.
   */
  list(prefix?: string): AsyncIterable<StoredObject>;
}

export class InvalidKeyError extends Error {
  constructor(key: string) {
    super(`Invalid storage key: ${JSON.stringify(key.slice(0, 200))}`);
    this.name = 'InvalidKeyError';
  }
}

export class SizeMismatchError extends Error {
  constructor(expected: number, actual: number) {
    super(`The body had ${actual} bytes where ${expected} were announced`);
    this.name = 'SizeMismatchError';
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const UNSAFE = /[\u0000-\u001f\u007f\\]/;

/**
 * Keys are relative, '/'-separated, without empty, '.' or '..' segments or control characters:
 * whatever a driver makes of one stays inside its folder or bucket. Drivers check every key they
 * are given, although the service only passes keys it made itself or read from its records.
 */
export function assertSafeKey(key: string): void {
  if (
    key.length === 0 ||
    key.length > 1024 ||
    UNSAFE.test(key) ||
    key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')
  ) {
    throw new InvalidKeyError(key);
  }
}
