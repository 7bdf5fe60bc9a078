import { fileTypeFromBuffer } from 'file-type';

/**
 * Raster images a browser shows without running anything. SVG (scripts, external loads) and any
 * other type are refused: the bytes decide, never the file name.
 */
const IMAGE_TYPES: ReadonlyMap<string, string> = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['image/avif', 'avif'],
  ['image/bmp', 'bmp'],
]);

/** The MIME type of an image the import takes, read from its bytes; null for anything else. */
export async function sniffImage(bytes: Uint8Array): Promise<{ mime: string; extension: string } | null> {
  const found = await fileTypeFromBuffer(bytes);
  const extension = found ? IMAGE_TYPES.get(found.mime) : undefined;
  return found && extension ? { mime: found.mime, extension } : null;
}
