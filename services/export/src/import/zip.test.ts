import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { ImportRefusedError } from './errors.js';
import { planUpload } from './index.js';
import { readZip, ZIP_LIMITS } from './zip.js';

async function zipOf(entries: Record<string, string | Buffer>, compress = true): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name, { compress });
  zip.end();
  return buffer(zip.outputStream);
}

/** yazl refuses unsafe names, so the fixture writes a same-length safe one and swaps the bytes. */
function rename(zip: Buffer, from: string, to: string): Buffer {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const out = Buffer.from(zip);
  let at = out.indexOf(from);
  while (at !== -1) {
    out.write(to, at);
    at = out.indexOf(from, at + 1);
  }
  return out;
}

/** Sets the uncompressed size the central directory declares for the first entry. */
function declareSize(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  const header = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  out.writeUInt32LE(size, header + 24);
  return out;
}

async function refusal(promise: Promise<unknown>): Promise<ImportRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportRefusedError);
  expect((error as ImportRefusedError).code).toBe('IMPORT_REFUSED');
  return error as ImportRefusedError;
}

// Building the fixtures (deflating megabytes, ten thousand entries) is slow on a busy machine.
describe('readZip', { timeout: 30_000 }, () => {
  it('reads every file, in NFC, leaving directories and system files out', async () => {
    const zip = await zipOf({
      'docs/a.md': '# A',
      'docs/Cafe\u0301.md': 'decomposed name',
      '__MACOSX/docs/._a.md': 'resource fork',
      'docs/.DS_Store': 'finder',
    });
    const files = await readZip(zip);
    expect(files.map((f) => f.path).sort()).toEqual(['docs/Café.md', 'docs/a.md']);
    expect(files.find((f) => f.path === 'docs/a.md')?.bytes.toString()).toBe('# A');
  });

  it('refuses an entry that climbs out of the archive, naming it', async () => {
    const zip = rename(await zipOf({ 'ok.md': 'x', 'xx/evil.md': 'y' }), 'xx/evil.md', '../evil.md');
    const error = await refusal(readZip(zip));
    expect(error.message).toContain('"../evil.md"');
    expect(error.message).toContain('outside the archive');
    expect(error.entry).toBe('../evil.md');
  });

  it('refuses an absolute entry path', async () => {
    const zip = rename(await zipOf({ 'tmp/x.md': 'y' }), 'tmp/x.md', '/etc/x.m');
    const error = await refusal(readZip(zip));
    expect(error.message).toContain('"/etc/x.m"');
  });

  it('refuses folders nested deeper than any export has them', async () => {
    const error = await refusal(readZip(await zipOf({ [`${'d/'.repeat(65)}x.md`]: 'deep' })));
    expect(error.message).toContain('nested more than 64 folders deep');
    expect(await readZip(await zipOf({ [`${'d/'.repeat(63)}x.md`]: 'fine' }))).toHaveLength(1);
  });

  it('refuses more entries than the limit before reading any', async () => {
    const entries: Record<string, string> = {};
    for (let i = 0; i <= ZIP_LIMITS.maxEntries; i++) entries[`f${i}.md`] = '';
    const error = await refusal(readZip(await zipOf(entries, false)));
    expect(error.message).toContain('10001 entries');
    expect(error.message).toContain('10000');
  });

  it('refuses an entry compressed beyond the ratio (a zip bomb)', async () => {
    const zip = await zipOf({ 'a.md': 'fine', 'bomb.md': Buffer.alloc(2 * 1024 * 1024) });
    const error = await refusal(readZip(zip));
    expect(error.message).toContain('"bomb.md"');
    expect(error.message).toContain('100:1');
  });

  it('counts the bytes actually inflated, not the size the header declares', async () => {
    // The header says 100 bytes; 2 MiB of zeros come out. Either the inflated-size count or
    // yauzl's own size check stops it while it is read, and the whole archive is refused.
    const bomb = declareSize(await zipOf({ 'bomb.md': Buffer.alloc(2 * 1024 * 1024) }), 100);
    const error = await refusal(readZip(bomb));
    expect(error.message).toContain('"bomb.md"');

    // An incompressible entry that lies about its size is caught by the size check alone.
    const lie = declareSize(await zipOf({ 'lie.md': randomBytes(64 * 1024) }), 100);
    const lieError = await refusal(readZip(lie));
    expect(lieError.message).toContain('"lie.md"');
    expect(lieError.message).toContain('other data than its header declares');
  });

  it('refuses an archive that unpacks to more than the total', async () => {
    const zip = await zipOf({ 'a.md': randomBytes(600), 'b.md': randomBytes(600) });
    const error = await refusal(readZip(zip, { ...ZIP_LIMITS, maxTotalBytes: 1000 }));
    expect(error.message).toContain('more than 1000 bytes');
    expect(await readZip(zip, { ...ZIP_LIMITS, maxTotalBytes: 1200 })).toHaveLength(2);
  });

  it('refuses what is not a zip, and an upload of another type', async () => {
    await refusal(readZip(Buffer.from('not a zip at all')));
    const error = await refusal(planUpload('setup.exe', Buffer.from('MZ')));
    expect(error.message).toContain('setup.exe');
  });

  it('refuses an archive without a single document', async () => {
    const error = await refusal(planUpload('pics.zip', await zipOf({ 'notes.txt': 'x' })));
    expect(error.message).toContain('no .md, .html or .docx');
  });
});

describe('zips inside the zip', { timeout: 30_000 }, () => {
  const ROOT = 'Team Wiki 0123456789abcdef0123456789abcdef';

  it("opens Notion's parts and merges their trees", async () => {
    const part1 = await zipOf({
      [`${ROOT}.md`]: '# Team Wiki\n\n[B](Team%20Wiki%200123456789abcdef0123456789abcdef/B.md)',
      [`${ROOT}/A.md`]: '# A',
    });
    const part2 = await zipOf({ [`${ROOT}/B.md`]: '# B', [`${ROOT}/A.md`]: '# A' });
    const outer = await zipOf({ 'Export-abc-Part-1.zip': part1, 'Export-abc-Part-2.zip': part2 }, false);
    const files = await readZip(outer);
    // The same file in two parts is one file; the inner zips themselves are no files.
    expect(files.map((f) => f.path).sort()).toEqual([`${ROOT}.md`, `${ROOT}/A.md`, `${ROOT}/B.md`]);

    const plan = await planUpload('Export-abc.zip', outer);
    expect(plan.documents.map((d) => [d.title, d.parentKey === null])).toEqual([
      ['Team Wiki', true],
      ['A', false],
      ['B', false],
    ]);
    expect(plan.warnings).toEqual([]); // the link across parts resolved, no zip left over
  });

  it("places an inner zip's files in the folder it sat in, and opens one level only", async () => {
    const deepest = await zipOf({ 'x.md': 'x' });
    const inner = await zipOf({ 'a.md': '# A', 'nested.zip': deepest });
    // One folder wraps the archive (a folder of parts zipped): its zips are the archive's parts.
    const files = await readZip(await zipOf({ 'Export/top.md': 'top', 'Export/more.zip': inner }));
    expect(files.map((f) => f.path).sort()).toEqual(['Export/a.md', 'Export/nested.zip', 'Export/top.md']);
  });

  it('leaves a zip below the top as a file (an attachment of a page)', async () => {
    const attached = await zipOf({ 'page.html': '<p>not a page of this space</p>' });
    const files = await readZip(
      await zipOf({ 'ENG/index.html': 'i', 'ENG/Home_1.html': 'h', 'ENG/attachments/1/files.zip': attached }),
    );
    expect(files.map((f) => f.path).sort()).toEqual([
      'ENG/Home_1.html',
      'ENG/attachments/1/files.zip',
      'ENG/index.html',
    ]);
    expect(files.find((f) => f.path.endsWith('files.zip'))?.bytes.equals(attached)).toBe(true);
  });

  it('refuses two different files at one path, naming it', async () => {
    const outer = await zipOf({ 'p1.zip': await zipOf({ 'a.md': 'one' }), 'p2.zip': await zipOf({ 'a.md': 'two' }) });
    const error = await refusal(readZip(outer));
    expect(error.message).toContain('"a.md" appears twice');
  });

  it('refuses an inner entry that climbs out, naming the inner zip', async () => {
    const inner = rename(await zipOf({ 'xx/evil.md': 'y' }), 'xx/evil.md', '../evil.md');
    const error = await refusal(readZip(await zipOf({ 'ok.md': 'x', 'Part-1.zip': inner })));
    expect(error.message).toContain('"Part-1.zip/../evil.md"');
    expect(error.message).toContain('outside the archive');

    // One that stays inside its own zip but climbs out of the folder the zip sits in is refused too.
    const climbing = rename(await zipOf({ 'xx/evil.md': 'y' }), 'xx/evil.md', '../evil.md');
    const nestedError = await refusal(readZip(await zipOf({ 'sub/p.zip': climbing })));
    expect(nestedError.message).toContain('outside the archive');
  });

  it('refuses an inner zip that is no zip', async () => {
    const error = await refusal(readZip(await zipOf({ 'a.md': 'x', 'broken.zip': 'not a zip' })));
    expect(error.message).toContain('"broken.zip" is not a readable zip archive');
  });

  it('counts entries across all levels', async () => {
    const part = await zipOf({ 'a.md': 'a', 'b.md': 'b' });
    const outer = await zipOf({ 'p1.zip': part, 'p2.zip': rename(part, 'a.md', 'c.md') });
    // Two outer entries and two in each part: six.
    const error = await refusal(readZip(outer, { ...ZIP_LIMITS, maxEntries: 5 }));
    expect(error.message).toContain('6 entries');
    expect(await readZip(outer, { ...ZIP_LIMITS, maxEntries: 6 })).toHaveLength(3);
  });

  it('counts inflated bytes across all levels', async () => {
    const part = await zipOf({ 'a.md': randomBytes(600), 'b.md': randomBytes(600) }, false);
    const outer = await zipOf({ 'p1.zip': part });
    // The part's bytes (about 1,400) and then its files (1,200), less the part once it is read.
    const error = await refusal(readZip(outer, { ...ZIP_LIMITS, maxTotalBytes: part.length + 1000 }));
    expect(error.message).toContain('at entry "p1.zip/');
    expect(await readZip(outer, { ...ZIP_LIMITS, maxTotalBytes: part.length + 1200 })).toHaveLength(2);
  });

  it("counts an inner entry's ratio against the outer bytes it came from", async () => {
    // a.md compresses about 20:1 in its part, and the part (mostly stored zeros) about 20:1 again.
    const text = Buffer.concat([randomBytes(1000), Buffer.alloc(19_000)]);
    const part = await zipOfEntries([
      ['a.md', text, true],
      ['pad.bin', Buffer.alloc(20_000), false],
    ]);
    const limits = { ...ZIP_LIMITS, ratioFloorBytes: 1024 };
    // Each level alone is within 100:1: the part read as the upload, and a.md in a part the outer
    // zip cannot compress.
    expect(await readZip(part, limits)).toHaveLength(2);
    expect(await readZip(await zipOf({ 'p.zip': await zipOf({ 'a.md': text }) }), limits)).toHaveLength(1);
    // Together they are not.
    const error = await refusal(readZip(await zipOf({ 'p.zip': part }), limits));
    expect(error.message).toContain('"p.zip/a.md" is compressed more than 100:1');
  });
});

async function zipOfEntries(entries: Array<[name: string, data: Buffer, compress: boolean]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data, compress] of entries) zip.addBuffer(data, name, { compress });
  zip.end();
  return buffer(zip.outputStream);
}
