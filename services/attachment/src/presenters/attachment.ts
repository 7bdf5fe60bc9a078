import type { AttachmentRow } from '../db/attachments.js';

/** The file-serving address of a key (spec 2: `/api/v1/attachments/file?url=<storage_key>`). */
export const fileUrlOf = (key: string) => `/api/v1/attachments/file?url=${encodeURIComponent(key)}`;

/** AttachmentResponse (spec 2). */
export function presentAttachment(row: AttachmentRow) {
  return {
    id: row.id,
    documentId: row.documentId,
    fileName: row.fileName,
    fileSize: row.fileSize,
    mimeType: row.mimeType,
    url: fileUrlOf(row.storageKey),
    width: row.width,
    height: row.height,
    createdAt: row.createdAt,
  };
}
