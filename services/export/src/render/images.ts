import type { ServiceClient } from '@wiki/service-client';
import { imageSize } from 'image-size';
import type { Block, ExportDocument } from '../domain/model.js';

/** Whose document asks for an image, and how many bytes it may still take. */
export interface ImageRequest {
  /** The exported document's workspace: only its own attachments are ever read. */
  workspaceId: string;
  maxBytes: number;
  requestId?: string;
}

/**
 * Reads the bytes of an attachment by its storage key. Nothing else is ever read: the renderers
 * never fetch a URL, so an image pointing at 127.0.0.1, a metadata address or file:// is
 * requested by nobody (it becomes a link, or nothing).
 */
export interface ImageSource {
  /** The attachment's bytes, or null when it cannot be had (missing, another workspace's, too large). */
  load(storageKey: string, request: ImageRequest): Promise<Uint8Array | null>;
  /**
   * Any attachment's bytes (not only a raster image), for a tree export that writes attachments
   * into its zip as files; `load` stands in when a source has no such read.
   */
  loadFile?(storageKey: string, request: ImageRequest): Promise<Uint8Array | null>;
}

/** The largest attachment a tree export writes into its zip; a larger one stays a link. */
export const ATTACHMENT_FILE_MAX_BYTES = 32 * 1024 * 1024;

/** How long one image may take to arrive before the export goes on without it. */
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;

/**
 * The attachment service's internal image route, as the worker's image source. Every failure
 * (the service down or slow, a refusal, a file over the cap) is an image left as a link: an
 * export is worth more without a picture than not at all. The client logs the failures it sees.
 */
export function attachmentImageSource(peers: ServiceClient): ImageSource {
  const read =
    (route: 'image' | 'file') =>
    async (storageKey: string, { workspaceId, maxBytes, requestId }: ImageRequest) => {
      const query = new URLSearchParams({ url: storageKey, workspaceId, maxBytes: String(maxBytes) });
      try {
        const answer = await peers.getBytes('attachment', `/internal/attachments/${route}?${query}`, {
          maxBytes,
          requestId,
          timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
          // Not an image, or larger than asked: an answer about this file, not a failing service.
          refusal: (status) => (status === 413 || status === 415 ? new Error(`refused (${status})`) : undefined),
        });
        return answer?.bytes ?? null;
      } catch {
        return null;
      }
    };
  return { load: read('image'), loadFile: read('file') };
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

/** Bounds one export's memory: a document may point at many large files (EXPORT_IMAGE_MAX_BYTES for one). */
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
export function inspectImage(data: Uint8Array, maxBytes = IMAGE_MAX_BYTES): LoadedImage | null {
  if (data.byteLength === 0 || data.byteLength > maxBytes) return null;
  try {
    const size = imageSize(data);
    const type = (size.type === 'jpeg' ? 'jpg' : size.type) as ImageType;
    if (!(type in MIME) || !size.width || !size.height) return null;
    return { data, type, mime: MIME[type], width: size.width, height: size.height };
  } catch {
    return null;
  }
}

export interface ImageContext {
  workspaceId: string;
  requestId?: string;
  /** The largest one image may be (EXPORT_IMAGE_MAX_BYTES). */
  imageMaxBytes?: number;
}

/** The images of a document that its source holds, by URL; the rest are left out (shown as links). */
export async function loadImages(
  doc: ExportDocument,
  source: ImageSource | undefined,
  context: ImageContext,
): Promise<Map<string, LoadedImage>> {
  const loaded = new Map<string, LoadedImage>();
  if (!source) return loaded;
  const imageMaxBytes = context.imageMaxBytes ?? IMAGE_MAX_BYTES;
  let total = 0;
  for (const url of imagesOf(doc.blocks, [])) {
    const key = attachmentKeyOf(url);
    // What is left of the export's budget caps the next image, so it is refused before it is read.
    const maxBytes = Math.min(imageMaxBytes, IMAGES_TOTAL_MAX_BYTES - total);
    if (!key || maxBytes <= 0) continue;
    const data = await source.load(key, { workspaceId: context.workspaceId, maxBytes, requestId: context.requestId });
    const image = data ? inspectImage(data, maxBytes) : null;
    if (!image) continue;
    total += image.data.byteLength;
    loaded.set(url, image);
  }
  return loaded;
}
