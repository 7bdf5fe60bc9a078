import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/**
 * A zip written to a temporary file as entries are added (yazl, deflated), so the archive is
 * never whole in memory: an entry is added once yazl has read the one before it (at most two
 * entries' bytes are held). The finished file is then streamed into the object store, which needs
 * its size first.
 */
export class ZipOnDisk {
  private readonly zip = new ZipFile();
  private previous: Promise<void> = Promise.resolve();
  private readonly done: Promise<void>;

  private constructor(
    private readonly dir: string,
    readonly path: string,
  ) {
    this.done = pipeline(this.zip.outputStream, createWriteStream(path));
    this.done.catch(() => undefined); // reported by finish()
  }

  static async create(): Promise<ZipOnDisk> {
    const dir = await mkdtemp(join(tmpdir(), 'wiki-export-zip-'));
    return new ZipOnDisk(dir, join(dir, 'export.zip'));
  }

  /** Adds one file (`path` '/'-separated inside the zip), once the previous one has been read. */
  async add(path: string, bytes: Uint8Array): Promise<void> {
    await this.previous;
    const body = Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)], { objectMode: false });
    this.previous = finished(body);
    this.zip.addReadStream(body, path, { mtime: new Date(), size: bytes.byteLength });
  }

  /** Ends the archive; its size on disk. */
  async finish(): Promise<number> {
    await this.previous;
    this.zip.end();
    await this.done;
    return (await stat(this.path)).size;
  }

  /** Removes the temporary file (also after a failure). */
  async discard(): Promise<void> {
    (this.zip.outputStream as Readable).destroy();
    await this.done.catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
