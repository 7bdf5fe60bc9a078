import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '@wiki/http';
import pLimit from 'p-limit';
import type { Sharp } from 'sharp';
import { isLosslessWebp } from '../domain/webp.js';
import { type SpooledFile, spooledFile } from './spool.js';

/** The types whose location and camera metadata (EXIF with GPS, XMP, IPTC, text chunks) go on arrival. */
export const CLEANED_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp']);

/**
 * libwebp's encoder holds about 10-20 bytes a pixel, JPEG and PNG about 4 (measured with sharp
 * 0.35, orientation applied): WebP images get this fraction of the pixel budget, so that either
 * kind costs about the same memory at the limit.
 */
const WEBP_PIXEL_SHARE = 4;
/** Re-encoding is lossy for JPEG and lossy WebP: high enough that nobody sees it. */
const QUALITY = 90;
/**
 * Images cleaned at once per process: each may hold its whole decoded image (turning it needs
 * random access), and sharp's work runs on libuv's small thread pool, which the rest of the
 * process needs for its files.
 */
const CLEANING_CONCURRENCY = 1;

export interface CleanedImage {
  file: SpooledFile;
  width: number;
  height: number;
}

export interface ImageCleaner {
  /** `source` re-encoded into `dir` without its metadata and turned upright; the caller discards both files. */
  clean(source: SpooledFile, mime: string, dir: string): Promise<CleanedImage>;
}

let sharpModule: Promise<typeof import('sharp')> | undefined;

/** sharp (libvips, ~30 MiB) is loaded on the first image, not by a service that keeps metadata. */
function loadSharp(): Promise<typeof import('sharp')> {
  sharpModule ??= import('sharp').then((module) => {
    // Uploads are never read twice: libvips' operation cache would only hold their pixels.
    module.default.cache(false);
    return module;
  });
  return sharpModule;
}

const unreadable = (mime: string) =>
  new AppError('VALIDATION_ERROR', `The file is not a readable ${mime.slice('image/'.length).toUpperCase()} image`, [
    { field: 'file', message: 'is not a readable image' },
  ]);

/**
 * The cleaner of one service: at most `maxPixels` pixels an image (WebP a quarter of it), checked
 * from the header before a pixel is decoded, so a decompression bomb is a 413, never the memory.
 */
export function createImageCleaner(options: { maxPixels: number }): ImageCleaner {
  const limit = pLimit(CLEANING_CONCURRENCY);
  return { clean: (source, mime, dir) => limit(() => cleanImage(source, mime, dir, options.maxPixels)) };
}

async function cleanImage(source: SpooledFile, mime: string, dir: string, maxPixels: number): Promise<CleanedImage> {
  const sharp = (await loadSharp()).default;
  const animated = mime === 'image/webp';
  const budget = animated ? Math.floor(maxPixels / WEBP_PIXEL_SHARE) : maxPixels;
  const input = { failOn: 'error', limitInputPixels: budget, animated } as const;

  let header: Awaited<ReturnType<Sharp['metadata']>>;
  try {
    // The header alone (no pixel is decoded), so that the limit below can say what it found.
    header = await sharp(source.path, { ...input, limitInputPixels: false }).metadata();
  } catch {
    throw unreadable(mime);
  }
  // Every frame of an animation counts: its height here is the frames' together.
  if (header.width * header.height > budget) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The image is too large: ${header.width}×${header.height} pixels, at most ${budget} for this type`,
    );
  }

  // Without keepExif/keepXmp/withMetadata sharp writes no EXIF, XMP, IPTC or text chunks; the
  // colour profile stays, as it is no one's location. autoOrient turns the pixels upright.
  let image = sharp(source.path, { ...input, autoOrient: true }).keepIccProfile();
  if (mime === 'image/jpeg') {
    // Without Huffman optimisation and progressive scans libjpeg needs no whole-image buffer.
    image = image.jpeg({
      quality: QUALITY,
      optimiseCoding: false,
      progressive: false,
      chromaSubsampling: header.chromaSubsampling === '4:4:4' ? '4:4:4' : '4:2:0',
    });
  } else if (mime === 'image/png') {
    // A palette image stays one: at most 256 colours in, the same colours out.
    image = image.png(header.isPalette ? { palette: true, quality: 100, dither: 0 } : {});
  } else {
    image = image.webp({ quality: QUALITY, lossless: isLosslessWebp(source.head) });
  }

  const path = join(dir, `${randomUUID()}.clean`);
  let info: Awaited<ReturnType<Sharp['toFile']>>;
  try {
    info = await image.toFile(path);
  } catch {
    await rm(path, { force: true });
    throw unreadable(mime);
  }
  const file = await spooledFile(path);
  return { file, width: info.width, height: info.pageHeight ?? info.height };
}
