import { imageSize } from 'image-size';
import type { Block, ExportDocument } from '../domain/model.js';

/**
 * Reads the bytes of an attachment by its storage key. Nothing else is ever read: the renderers
 * never fetch a URL, so an image pointing at 127.0.0.1, a metadata address or file:// is
 * requested by nobody (it becomes a link, or nothing).
 */
export interface ImageSource {
  /** The attachment's bytes, or null when storage does not hold that key. */
  load(storageKey: string): Promise<Uint8Array | null>;
}

const ATTACHMENT_PATH = '/api/v1/attachments/file';

/**
 * The storage key of an image the editor uploaded (`/api/v1/attachments/file?url=<key>`, as the
 * editor stores it, on this site or written out with a host), else null: only the key travels on,
 * never a host to connect to.
 */
export function attachmentKeyOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://wiki.invalid');
  } catch {
    return null;
  }
  if (parsed.pathname !== ATTACHMENT_PATH) return null;
  const key = parsed.searchParams.get('url');
  return key && key.length <= 1024 ? key : null;
}

/** The raster types all three outputs can embed (Word takes no WebP or SVG). */
export type ImageType = 'png' | 'jpg' | 'gif' | 'bmp';
const MIME: Record<ImageType, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp' };

export interface LoadedImage {
  data: Uint8Array;
  type: ImageType;
  mime: string;
  width: number;
  height: number;
}

/** Bounds one export's memory: a document may point at many large files. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const IMAGES_TOTAL_MAX_BYTES = 40 * 1024 * 1024;

function imagesOf(blocks: Block[], out: string[]): string[] {
  for (const block of blocks) {
    if (block.kind === 'image' && block.url && !out.includes(block.url)) out.push(block.url);
    if ('children' in block) imagesOf(block.children, out);
  }
  return out;
}

/** Checks what a source answered: a real raster image of a type every output embeds, else nothing. */
export function inspectImage(data: Uint8Array): LoadedImage | null {
  if (data.byteLength === 0 || data.byteLength > IMAGE_MAX_BYTES) return null;
  try {
    const size = imageSize(data);
    const type = (size.type === 'jpeg' ? 'jpg' : size.type) as ImageType;
    if (!(type in MIME) || !size.width || !size.height) return null;
    return { data, type, mime: MIME[type], width: size.width, height: size.height };
  } catch {
    return null;
  }
}

/** The images of a document that its source holds, by URL; the rest are left out (shown as links). */
export async function loadImages(
  doc: ExportDocument,
  source: ImageSource | undefined,
): Promise<Map<string, LoadedImage>> {
  const loaded = new Map<string, LoadedImage>();
  if (!source) return loaded;
  let total = 0;
  for (const url of imagesOf(doc.blocks, [])) {
    const key = attachmentKeyOf(url);
    const data = key ? await source.load(key) : null;
    const image = data ? inspectImage(data) : null;
    if (!image || total + image.data.byteLength > IMAGES_TOTAL_MAX_BYTES) continue;
    total += image.data.byteLength;
    loaded.set(url, image);
  }
  return loaded;
}
