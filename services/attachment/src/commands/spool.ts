import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Enough of a file's start to sniff its type and to find an image's size behind its metadata. */
export const HEAD_BYTES = 256 * 1024;

export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
  /** The first HEAD_BYTES (or fewer) of the file. */
  head: Buffer;
  /** Removes the spool file (idempotent). */
  discard(): Promise<void>;
}

/** Counts, hashes and keeps the head of the bytes that pass through it. */
function fileTap() {
  const hash = createHash('sha256');
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      hash.update(chunk);
      if (headLength < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headLength);
        // A copy: the chunk's memory may be a slice of a larger buffer the parser reuses.
        headChunks.push(Buffer.from(part));
        headLength += part.length;
      }
      done(null, chunk);
    },
  });
  return { stream, seen: () => ({ size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks) }) };
}

/**
 * Writes an upload to a file of its own in `dir` as it arrives, hashing and counting it on the
 * way and keeping only its first HEAD_BYTES in memory: memory stays flat whatever the size. The
 * object store then gets a body of known size (see ObjectStorage.put), and nothing at all is
 * stored for an upload that breaks off, is too large or is refused once the form has been read.
 * On a failure the file is removed before the error is passed on.
 */
export async function spool(source: Readable, dir: string): Promise<SpooledFile> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.upload`);
  const discard = () => rm(path, { force: true });
  const tap = fileTap();
  try {
    await pipeline(source, tap.stream, createWriteStream(path, { flags: 'wx' }));
  } catch (error) {
    await discard();
    throw error;
  }
  return { path, ...tap.seen(), discard };
}

/** A file written into the spool folder by other means (a cleaned image), read once to describe it. */
export async function spooledFile(path: string): Promise<SpooledFile> {
  const discard = () => rm(path, { force: true });
  const tap = fileTap();
  try {
    await pipeline(createReadStream(path), tap.stream, new Writable({ write: (_chunk, _enc, done) => done() }));
  } catch (error) {
    await discard();
    throw error;
  }
  return { path, ...tap.seen(), discard };
}
