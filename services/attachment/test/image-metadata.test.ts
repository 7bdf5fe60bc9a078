import { createHash, randomBytes } from 'node:crypto';
import { createDeflate } from 'node:zlib';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import {
  collector,
  createDocument,
  pngAround,
  pngChunk,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import sharp from 'sharp';
import { type Attachment, getAs, objectsOf, spoolOf, startAttachmentStack, uploadAs } from './helpers.js';

/**
 * Photos are made here with the metadata a phone or a camera writes: EXIF with the camera and a
 * GPS position, XMP, IPTC (and PNG text chunks), an EXIF orientation that says "turn me". What the
 * service stores is read back with sharp: none of it left, the pixels upright.
 */
const CAMERA = 'WikiTestCam';
const CITY = 'Lyon-Presquile';
const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:City="${CITY}"/></rdf:RDF></x:xmpmeta>`;
/** EXIF's pointer to its GPS directory (tag 0x8825, type LONG), as sharp writes it (little-endian). */
const GPS_POINTER = Buffer.from([0x25, 0x88, 0x04, 0x00]);
const EXIF = {
  IFD0: { Make: CAMERA, Model: 'X-100', Software: 'WikiTest 1.0' },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '45/1 45/1 5040/100',
    GPSLongitudeRef: 'E',
    GPSLongitude: '4/1 50/1 2880/100',
  },
};

/**
 * 40 × 20 pixels as stored, left half red and right half blue, with EXIF orientation 6 ("turn
 * 90° clockwise to show"): shown upright it is 20 × 40, red on top and blue below.
 */
function sideways() {
  return sharp({ create: { width: 40, height: 20, channels: 3, background: '#0000ff' } }).composite([
    { input: { create: { width: 20, height: 20, channels: 3, background: '#ff0000' } }, left: 0, top: 0 },
  ]);
}

/** An IPTC record (City) in a Photoshop APP13 segment, put right after a JPEG's SOI marker. */
function withIptc(jpeg: Buffer): Buffer {
  const city = Buffer.from(CITY, 'latin1');
  const dataset = Buffer.concat([Buffer.from([0x1c, 0x02, 0x5a, 0x00, city.length]), city]);
  const padded = Buffer.concat([dataset, Buffer.alloc(dataset.length % 2)]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(dataset.length);
  const resource = Buffer.concat([Buffer.from('8BIM\u0004\u0004\u0000\u0000', 'latin1'), size, padded]);
  const body = Buffer.concat([Buffer.from('Photoshop 3.0\u0000', 'latin1'), resource]);
  const head = Buffer.from([0xff, 0xed, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, body, jpeg.subarray(2)]);
}

/** A tEXt chunk put right after a PNG's header (IHDR). */
function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const chunk = pngChunk('tEXt', Buffer.from(`${keyword}\u0000${text}`, 'latin1'));
  const afterHeader = 8 + 25;
  return Buffer.concat([png.subarray(0, afterHeader), chunk, png.subarray(afterHeader)]);
}

const photos = {
  jpeg: async () =>
    withIptc(
      await sideways()
        .jpeg({ quality: 95 })
        .withMetadata({ orientation: 6 })
        .withExifMerge(EXIF)
        .withXmp(XMP)
        .toBuffer(),
    ),
  png: async () =>
    withTextChunk(
      await sideways().png().withMetadata({ orientation: 6 }).withExifMerge(EXIF).withXmp(XMP).toBuffer(),
      'Comment',
      `taken at ${CITY}`,
    ),
  webp: async () =>
    sideways().webp({ quality: 95 }).withMetadata({ orientation: 6 }).withExifMerge(EXIF).withXmp(XMP).toBuffer(),
};

/**
 * A grayscale PNG of `side` × `side` black pixels, deflated as it is made: a few hundred KiB that
 * decode to side² bytes (a decompression bomb).
 */
async function bomb(side: number): Promise<Buffer> {
  const row = Buffer.alloc(side + 1); // filter byte 0, then black
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const done = new Promise((resolve) => deflate.once('end', resolve));
  for (let y = 0; y < side; y++) {
    if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return pngAround(side, side, 0, Buffer.concat(compressed));
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The colour of one pixel of an image: which of red or blue dominates there. */
async function colourAt(image: Buffer, x: number, y: number): Promise<'red' | 'blue' | 'other'> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  const [r, , b] = [data[at], data[at + 1], data[at + 2]];
  if (r > 180 && b < 80) return 'red';
  if (b > 180 && r < 80) return 'blue';
  return 'other';
}

let stack: Stack;
let db: DatabasePool;
let editor: SignedInUser;
let ids: { workspaceId: string; documentId: string };

beforeAll(async () => {
  stack = await startAttachmentStack(); // ATTACHMENTS_* at their defaults: metadata removed
  db = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
  editor = await signInNew(stack, 'Photographer');
  const ws = await workspaceWith(stack, editor);
  ids = { workspaceId: ws.id, documentId: (await createDocument(stack, editor, { workspaceId: ws.id })).id };
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const rowsOf = (documentId: string) =>
  db.oneFirst(sql.unsafe`SELECT count(*)::int AS n FROM attachments WHERE document_id = ${documentId}`);

describe('location and camera metadata', () => {
  it.each(['jpeg', 'png', 'webp'] as const)(
    'are removed from a %s on arrival, its orientation applied; size, SHA-256 and dimensions are the stored image’s',
    async (kind) => {
      const original = await photos[kind]();
      // The photo really carries what the service must remove.
      const before = await sharp(original).metadata();
      expect(before.exif?.includes(CAMERA)).toBe(true);
      expect(before.exif?.includes(GPS_POINTER)).toBe(true);
      expect(before.xmpAsString).toContain(CITY);
      expect(before.orientation).toBe(6);
      if (kind === 'jpeg') expect(before.iptc?.includes(CITY)).toBe(true);
      if (kind === 'png') expect(before.comments).toEqual([{ keyword: 'Comment', text: `taken at ${CITY}` }]);

      const res = await uploadAs(stack, editor, ids, { name: `photo.${kind}`, body: original });
      expect(res.status, res.bytes.toString()).toBe(201);
      const a: Attachment = res.body.data;
      expect(a).toMatchObject({ mimeType: `image/${kind}`, width: 20, height: 40 });

      const served = await getAs(stack, editor, a.url);
      expect(served.status).toBe(200);
      const stored = served.bytes;
      expect(stored.length).toBe(a.fileSize);
      expect(served.headers.get('etag')).toBe(`"${sha256(stored).slice(0, 32)}"`);
      const after = await sharp(stored).metadata();
      expect(after).toMatchObject({ format: kind, width: 20, height: 40 });
      expect(after.exif).toBeUndefined();
      expect(after.xmp).toBeUndefined();
      expect(after.iptc).toBeUndefined();
      expect(after.comments).toBeUndefined();
      expect(after.orientation).toBeUndefined();
      for (const trace of [CAMERA, CITY, 'WikiTest 1.0']) expect(stored.includes(trace), trace).toBe(false);
      expect(stored.includes(GPS_POINTER)).toBe(false);
      // Upright: what was the left (red) is on top now.
      expect(await colourAt(stored, 10, 5)).toBe('red');
      expect(await colourAt(stored, 10, 34)).toBe('blue');
      expect(await spoolOf(stack)).toEqual([]);
    },
  );

  it('keeps the frames of an animated WebP', async () => {
    const frame = (colour: string) =>
      sharp({ create: { width: 16, height: 12, channels: 3, background: colour } })
        .raw()
        .toBuffer();
    const frames = Buffer.concat(await Promise.all(['#f00', '#0f0', '#00f'].map(frame)));
    const animated = await sharp(frames, { raw: { width: 16, height: 36, channels: 3, pageHeight: 12 } })
      .webp({ loop: 0, delay: [80, 80, 80], lossless: true })
      .withExif(EXIF)
      .toBuffer();
    const res = await uploadAs(stack, editor, ids, { name: 'blink.webp', body: animated });
    expect(res.status, res.bytes.toString()).toBe(201);
    expect(res.body.data).toMatchObject({ width: 16, height: 12 });
    const stored = (await getAs(stack, editor, res.body.data.url)).bytes;
    const after = await sharp(stored, { animated: true }).metadata();
    expect(after).toMatchObject({ pages: 3, pageHeight: 12, delay: [80, 80, 80] });
    expect(after.exif).toBeUndefined();
  });

  it('refuses a decompression bomb (a PNG under 1 MiB of 144 million pixels) with 413, unread, and stores nothing', async () => {
    const doc = await createDocument(stack, editor, { workspaceId: ids.workspaceId });
    const file = await bomb(12_000);
    expect(file.length).toBeLessThan(1024 * 1024);
    const objectsBefore = (await objectsOf(stack)).length;

    collector()();
    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    try {
      const res = await uploadAs(
        stack,
        editor,
        { workspaceId: ids.workspaceId, documentId: doc.id },
        { name: 'bomb.png', body: file },
      );
      expect(res.status).toBe(413);
      expect(res.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.bytes.toString()).toContain('12000×12000 pixels');
    } finally {
      clearInterval(sampler);
    }
    // Decoded, it would be 137 MiB; the service read its header only.
    expect(peak - rssBefore).toBeLessThan(48 * 1024 * 1024);
    expect(await rowsOf(doc.id)).toBe(0);
    expect((await objectsOf(stack)).length).toBe(objectsBefore);
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('refuses a file that starts like a JPEG but is none (400), and stores nothing', async () => {
    const doc = await createDocument(stack, editor, { workspaceId: ids.workspaceId });
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(4000)]);
    const res = await uploadAs(
      stack,
      editor,
      { workspaceId: ids.workspaceId, documentId: doc.id },
      { name: 'broken.jpg', body: fake },
    );
    expect(res.status).toBe(400);
    expect(res.body.error?.details).toEqual([{ field: 'file', message: 'is not a readable image' }]);
    expect(await rowsOf(doc.id)).toBe(0);
    expect(await spoolOf(stack)).toEqual([]);
  });
});

describe('ATTACHMENTS_KEEP_METADATA=true', () => {
  it('stores photos exactly as sent', async () => {
    const keeping = await startAttachmentStack({ ATTACHMENTS_KEEP_METADATA: 'true' });
    try {
      const owner = await signInNew(keeping, 'Archivist');
      const ws = await workspaceWith(keeping, owner);
      const doc = await createDocument(keeping, owner, { workspaceId: ws.id });
      const original = await photos.jpeg();
      const res = await uploadAs(
        keeping,
        owner,
        { workspaceId: ws.id, documentId: doc.id },
        { name: 'a.jpg', body: original },
      );
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ mimeType: 'image/jpeg', fileSize: original.length, width: 40, height: 20 });
      const served = await getAs(keeping, owner, res.body.data.url);
      expect(served.bytes.equals(original)).toBe(true);
    } finally {
      await keeping.stop();
    }
  });
});
