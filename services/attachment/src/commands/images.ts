import { AppError, notFound } from '@wiki/http';
import type { AttachmentContext } from '../context.js';
import { type AttachmentRow, findByKey } from '../db/attachments.js';
import { isWellFormedKey } from '../domain/file-name.js';

/**
 * What another service may read to embed (the export worker): raster images only, by their sniffed
 * type. SVG can carry script and HTML is a page; neither is ever handed out to be embedded.
 */
export const EMBEDDABLE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/**
 * GET /internal/attachments/image: the record of an image the caller may embed in a document of
 * `workspaceId`. A key of another workspace is the same 404 as no key: a document can point at any
 * key, and its export must not turn that into a read of someone else's files.
 */
export async function embeddableImage(
  ctx: Pick<AttachmentContext, 'pool'>,
  key: string,
  workspaceId: string,
  maxBytes: number,
): Promise<AttachmentRow> {
  const row = await fileOfWorkspace(ctx, key, workspaceId);
  if (!EMBEDDABLE_IMAGE_TYPES.has(row.mimeType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The file is not a raster image');
  }
  if (row.fileSize > maxBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The image is larger than ${maxBytes} bytes`);
  }
  return row;
}

/**
 * GET /internal/attachments/file: the record of any file of `workspaceId` (a tree export writes
 * attachments into its zip as files, never into a page it renders). The same 404 for another
 * workspace's key as for none; a file over the caller's cap is refused before a byte is read.
 */
export async function exportableFile(
  ctx: Pick<AttachmentContext, 'pool'>,
  key: string,
  workspaceId: string,
  maxBytes: number,
): Promise<AttachmentRow> {
  const row = await fileOfWorkspace(ctx, key, workspaceId);
  if (row.fileSize > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${maxBytes} bytes`);
  return row;
}

/** The record of `key` in `workspaceId`; another workspace's key is the same 404 as none. */
async function fileOfWorkspace(
  ctx: Pick<AttachmentContext, 'pool'>,
  key: string,
  workspaceId: string,
): Promise<AttachmentRow> {
  if (!isWellFormedKey(key)) throw notFound('File');
  const row = await findByKey(ctx.pool, key);
  if (!row || row.workspaceId !== workspaceId.toLowerCase()) throw notFound('File');
  return row;
}
