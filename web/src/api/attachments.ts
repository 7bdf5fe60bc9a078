import { type ApiClient, ApiError, type UploadOptions } from './client';
import type { Attachment } from './types';

/** Where the attachment service serves a file (the `url` of an AttachmentResponse). */
const FILE_PATH = '/api/v1/attachments/file';

/** Types a fetched file keeps in its object URL; anything else becomes a download (see fileBlob). */
const SHOWN_TYPES = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+)$/;

export function uploadAttachment(
  api: ApiClient,
  ids: { workspaceId: string; documentId: string },
  file: File,
  options?: UploadOptions,
): Promise<Attachment> {
  const form = new FormData();
  // The ids before the file: the service checks the right to upload before reading the bytes.
  form.append('workspaceId', ids.workspaceId);
  form.append('documentId', ids.documentId);
  form.append('file', file, file.name);
  return api.upload<Attachment>('/attachments/upload', form, options);
}

/** The storage key of an attachment address on this server, or null for any other address. */
export function attachmentKeyOf(url: string): string | null {
  try {
    const parsed = new URL(url, window.location.origin);
    if (parsed.origin !== window.location.origin || parsed.pathname !== FILE_PATH) return null;
    return parsed.searchParams.get('url');
  } catch {
    return null;
  }
}

/**
 * The file behind an attachment key, fetched with the person's token (or none on a public page).
 * An object URL runs in the app's origin, so only pictures, sound and video keep their type;
 * everything else (HTML, SVG, PDF…) becomes octet-stream, which a browser only ever downloads.
 */
export async function fileBlob(api: ApiClient, key: string, anonymous = false): Promise<Blob> {
  const response = await api.fetch('GET', '/attachments/file', {
    query: { url: key },
    headers: { accept: '*/*' },
    anonymous,
  });
  const blob = await response.blob();
  return SHOWN_TYPES.test(blob.type) ? blob : new Blob([blob], { type: 'application/octet-stream' });
}

/** What to tell the person when `fileName` could not be uploaded. */
export function uploadErrorMessage(error: unknown, fileName: string): string {
  if (error instanceof ApiError) {
    if (error.status === 413) return `“${fileName}” is too large to upload. ${error.message}.`;
    if (error.status === 415) return `“${fileName}” is a type of file this wiki does not accept. ${error.message}.`;
    if (error.status === 403) return `You may not add files to this document (${error.message}).`;
    if (error.code === 'DOCUMENT_ARCHIVED') return 'This document is archived: restore it before adding files.';
    return `“${fileName}” could not be uploaded: ${error.message}`;
  }
  return `“${fileName}” could not be uploaded: the connection failed. Check your network and try again.`;
}

/** A size as people read it (1 decimal above a kilobyte). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
