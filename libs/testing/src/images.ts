import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** One PNG chunk: length, type, data and the CRC over type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The bytes of an 8-bit PNG around its compressed pixel data (colour type 0: grey, 2: RGB). */
export function pngAround(width: number, height: number, colourType: 0 | 2, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colourType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A truecolour PNG of `rows` (each width × 3 bytes of RGB). */
function pngOf(width: number, height: number, row: (y: number) => Buffer, level?: number): Buffer {
  const raw = Buffer.concat(Array.from({ length: height }, (_, y) => Buffer.concat([Buffer.from([0]), row(y)])));
  return pngAround(width, height, 2, deflateSync(raw, { level }));
}

/** A real PNG of one colour (width × height), made here so tests need no image files. */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const row = Buffer.alloc(width * 3).fill(Buffer.from(rgb));
  return pngOf(width, height, () => row);
}

/** A real PNG of random pixels: incompressible, so about width × height × 3 bytes long. */
export function noisePng(width: number, height: number): Buffer {
  return pngOf(width, height, () => randomBytes(width * 3), 0);
}
