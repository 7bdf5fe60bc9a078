import { posix } from 'node:path';
import { promisify } from 'node:util';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ImportRefusedError } from './errors.js';

/** The bounds of ARCHITECTURE 5.19 on an uploaded archive. */
export interface ZipLimits {
  maxEntries: number;
  /** Uncompressed bytes of all entries together, counted as they are inflated. */
  maxTotalBytes: number;
  /** Uncompressed : compressed, per entry, checked once an entry is past `ratioFloorBytes`. */
  maxRatio: number;
  /** Small entries may compress better than `maxRatio` (a file of blanks): they are not checked. */
  ratioFloorBytes: number;
}

export const ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxTotalBytes: 1024 ** 3,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

export interface ArchiveFile {
  /** The entry's path inside the archive, `/`-separated, Unicode NFC. */
  path: string;
  bytes: Buffer;
}

const fromBuffer = promisify<Buffer, yauzl.Options, ZipFile>(yauzl.fromBuffer);
const fromPath = promisify<string, yauzl.Options, ZipFile>(yauzl.open);

/** Entries that operating systems add to archives and nobody means to import. */
const JUNK = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$)/i;

/** yauzl's own refusals of a name, said as the import says them. */
function nameError(message: string, shown: (name: string) => string): ImportRefusedError | null {
  const match = /^(absolute path|invalid relative path|invalid characters in fileName): ([\s\S]*)$/.exec(message);
  if (!match) return null;
  const entry = shown(match[2]);
  return match[1] === 'invalid characters in fileName'
    ? new ImportRefusedError(`entry "${entry}" has a name the import does not take`, entry)
    : new ImportRefusedError(`entry "${entry}" points outside the archive`, entry);
}

function closeQuietly(zip: ZipFile): void {
  try {
    if (zip.isOpen) zip.close();
  } catch {
    // already closed by autoClose
  }
}

/** Folders deeper than this would only deepen the planner's recursion; no real export nests so. */
export const MAX_PATH_DEPTH = 64;

/** What yauzl's name check lets through but a path inside the archive must not hold. */
function checkName(path: string, name: string): void {
  if (path.split('/').filter(Boolean).length > MAX_PATH_DEPTH) {
    throw new ImportRefusedError(
      `entry "${name.slice(0, 200)}…" is nested more than ${MAX_PATH_DEPTH} folders deep`,
      name,
    );
  }
  if (path.includes('\u0000')) throw new ImportRefusedError(`entry "${name}" has a NUL in its name`, name);
  if (path.split('/').some((part) => part === '..')) {
    throw new ImportRefusedError(`entry "${name}" points outside the archive`, name);
  }
}

/** What the outer archive and the archives inside it have used of the limits, together. */
interface Budget {
  entries: number;
  total: number;
}

/** Where the entries of the archive being read go, and how its own bytes came to be. */
interface Level {
  /** The archive's path inside the outer one (`''` for the outer archive), named in messages. */
  label: string;
  /** The folder its entries are placed in (`''`: the top, or the folder an inner zip sits in). */
  folder: string;
  /** How much the outer archive had inflated the inner one's bytes (1 for the outer archive). */
  inflation: number;
  /** Inner zips are opened at the outer level only. */
  opensZips: boolean;
}

interface InnerZip {
  path: string;
  bytes: Buffer;
  inflation: number;
}

const isZipName = (name: string) => /\.zip$/i.test(name);

/**
 * Every file of a zip archive, read entry by entry through the inflater. The limits are checked
 * on the central directory first (entry count, declared sizes) and again on the bytes actually
 * inflated, so an entry whose header understates its size is caught while it is read; yauzl also
 * fails an entry whose data differs from its declared size. Any breach refuses the whole archive.
 *
 * A zip at the top of the archive (Notion's large exports are a zip of `…-Part-1.zip`,
 * `…-Part-2.zip`) is opened too, one level deep: its files take its place, in the folder it sat
 * in, so the parts' trees merge; a zip further down stays a file. The limits hold for all levels together: entries add up, inflated bytes add up
 * (an inner zip's own bytes count until its files have replaced it), and an inner entry's ratio
 * is counted against the outer archive's bytes it came from.
 */
export async function readZip(source: Buffer | string, limits: ZipLimits = ZIP_LIMITS): Promise<ArchiveFile[]> {
  const budget: Budget = { entries: 0, total: 0 };
  const inner: InnerZip[] = [];
  const files = await readArchive(source, limits, budget, inner, {
    label: '',
    folder: '',
    inflation: 1,
    opensZips: true,
  });
  // Only zips at the archive's top (or in the one folder wrapping it all) are parts of it; a zip
  // further down is a file of a page (a Confluence attachment) and stays one.
  const top = topFolder([...files, ...inner]);
  const parts = inner.filter((zip) => posix.dirname(`/${zip.path}`) === `/${top}`);
  files.push(...inner.filter((zip) => !parts.includes(zip)).map(({ path, bytes }) => ({ path, bytes })));
  inner.length = 0;
  const byPath = new Map(files.map((file) => [file.path, file]));
  // Each inner zip is let go once read: the total then bounds the bytes held at any one time.
  for (let zip = parts.shift(); zip; zip = parts.shift()) {
    const folder = posix.dirname(zip.path);
    const level = { label: zip.path, folder: folder === '.' ? '' : folder, inflation: zip.inflation, opensZips: false };
    for (const file of await readArchive(zip.bytes, limits, budget, [], level)) {
      const known = byPath.get(file.path);
      // The parts of one export may both hold a file; the same bytes twice are one file.
      if (known?.bytes.equals(file.bytes)) continue;
      if (known)
        throw new ImportRefusedError(
          `entry "${file.path}" appears twice in the archive, with other contents`,
          file.path,
        );
      byPath.set(file.path, file);
      files.push(file);
    }
    budget.total -= zip.bytes.length;
  }
  return files;
}

/** The one folder every path is in (`a/b` for `a/b/x`, `a/b/y`), or `''`; without a trailing `/`. */
function topFolder(files: ReadonlyArray<{ path: string }>): string {
  let folder: string | null = null;
  for (const { path } of files) {
    const own = posix.dirname(path) === '.' ? '' : posix.dirname(path);
    if (folder === null) folder = own;
    while (folder !== '' && own !== folder && !own.startsWith(`${folder}/`)) {
      folder = posix.dirname(folder) === '.' ? '' : posix.dirname(folder);
    }
  }
  return folder ?? '';
}

async function readArchive(
  source: Buffer | string,
  limits: ZipLimits,
  budget: Budget,
  innerZips: InnerZip[],
  level: Level,
): Promise<ArchiveFile[]> {
  const shown = (name: string) => (level.label ? `${level.label}/${name}` : name);
  const options: yauzl.Options = { lazyEntries: true, autoClose: true, decodeStrings: true, validateEntrySizes: true };
  let zip: ZipFile;
  try {
    zip = typeof source === 'string' ? await fromPath(source, options) : await fromBuffer(source, options);
  } catch (error) {
    throw level.label
      ? new ImportRefusedError(
          `"${level.label}" is not a readable zip archive (${(error as Error).message})`,
          level.label,
        )
      : new ImportRefusedError(`the file is not a readable zip archive (${(error as Error).message})`);
  }
  budget.entries += zip.entryCount;
  if (budget.entries > limits.maxEntries) {
    closeQuietly(zip);
    throw new ImportRefusedError(
      level.label
        ? `the archive and the archives inside it hold ${budget.entries} entries; at most ${limits.maxEntries} are taken`
        : `the archive holds ${zip.entryCount} entries; at most ${limits.maxEntries} are taken`,
    );
  }
  const files: ArchiveFile[] = [];
  const seen = new Set<string>();
  const openStream = promisify(zip.openReadStream.bind(zip));

  const readEntry = async (entry: Entry): Promise<void> => {
    const own = entry.fileName.normalize('NFC').replace(/^(\.\/)+/, '');
    checkName(own, shown(own));
    if (own.endsWith('/') || JUNK.test(own)) return;
    const path = level.folder ? `${level.folder}/${own}` : own;
    const name = shown(own);
    checkName(path, name);
    if (seen.has(own)) throw new ImportRefusedError(`entry "${name}" appears twice in the archive`, name);
    seen.add(own);
    if ((entry.generalPurposeBitFlag & 1) !== 0) {
      throw new ImportRefusedError(`entry "${name}" is encrypted`, name);
    }
    // An inner entry's bytes were inflated twice: its ratio is against the outer archive's bytes.
    const overRatio = (bytes: number) =>
      bytes > limits.ratioFloorBytes && bytes * level.inflation > limits.maxRatio * Math.max(entry.compressedSize, 1);
    const overTotal = (bytes: number) => budget.total + bytes > limits.maxTotalBytes;
    const tooLarge = () =>
      new ImportRefusedError(
        `the archive unpacks to more than ${limits.maxTotalBytes} bytes (at entry "${name}")`,
        name,
      );
    const bomb = () =>
      new ImportRefusedError(
        `entry "${name}" is compressed more than ${limits.maxRatio}:1 (a zip bomb is refused)`,
        name,
      );
    if (overTotal(entry.uncompressedSize)) throw tooLarge();
    if (overRatio(entry.uncompressedSize)) throw bomb();

    const stream = await openStream(entry);
    const chunks: Buffer[] = [];
    let size = 0;
    // yauzl 2 replaced the stream's destroy() and errors never surfaced (an import that hung);
    // yauzl 3 emits them, and the limits are checked on every chunk.
    await new Promise<void>((resolve, reject) => {
      const stop = (error: Error) => {
        stream.removeAllListeners('data');
        stream.destroy();
        reject(error);
      };
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (overTotal(size)) stop(tooLarge());
        else if (overRatio(size)) stop(bomb());
        else chunks.push(chunk);
      });
      stream.on('end', () => resolve());
      stream.on('error', (error: Error) => {
        stop(
          new ImportRefusedError(
            /bytes in the stream/.test(error.message)
              ? `entry "${name}" holds other data than its header declares (${error.message})`
              : `entry "${name}" cannot be read (${error.message})`,
            name,
          ),
        );
      });
    });
    budget.total += size;
    const bytes = Buffer.concat(chunks, size);
    if (level.opensZips && isZipName(own)) {
      innerZips.push({ path, bytes, inflation: Math.max(1, size / Math.max(entry.compressedSize, 1)) });
    } else files.push({ path, bytes });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        closeQuietly(zip);
        reject(error);
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        readEntry(entry).then(() => zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  } catch (error) {
    if (error instanceof ImportRefusedError) throw error;
    const message = (error as Error).message;
    throw (
      nameError(message, shown) ??
      new ImportRefusedError(
        /bytes in the stream/.test(message)
          ? `an entry's data does not match its declared size (${message})`
          : `the archive cannot be read (${message})`,
      )
    );
  }
  return files;
}
