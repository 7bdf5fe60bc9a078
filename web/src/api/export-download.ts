import { type ApiClient, ApiError } from './client';
import { saveBlob } from './save-blob';
import type { ExportFormat } from './types';

/** What the menu calls each format, and the extension of its file. */
export const EXPORT_FORMATS: Record<ExportFormat, { label: string; extension: string }> = {
  pdf: { label: 'PDF', extension: 'pdf' },
  docx: { label: 'Word', extension: 'docx' },
  markdown: { label: 'Markdown', extension: 'md' },
};

/**
 * How long the browser waits for a file. The export service answers 503 after its own timeout
 * (60 s by default); this only ends a request that hangs beyond it.
 */
export const EXPORT_WAIT_MS = 90_000;

/** The request outlived EXPORT_WAIT_MS. */
export class ExportTimeout extends Error {
  constructor() {
    super('The export took too long');
    this.name = 'ExportTimeout';
  }
}

/** The file name of `attachment; filename*=UTF-8''…` (or a plain `filename="…"`), if there is one. */
export function fileNameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1].trim());
    } catch {
      // A broken encoding: fall back to the plain name or the title.
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"/i.exec(header) ?? /filename\s*=\s*([^;]+)/i.exec(header);
  return plain ? plain[1].trim() : null;
}

/** The title as a file name, the way the server names it when it does not say (no path characters). */
function fileNameFromTitle(title: string, extension: string): string {
  const base = title.replace(/[\p{Cc}/\\:*?"<>|]/gu, '_').trim() || 'document';
  return `${base}.${extension}`;
}

/**
 * Fetches the export with the session's token (a plain link could not carry it) and hands the file
 * to the browser (saveBlob). Answers the file name it was saved as.
 */
export async function downloadExport(
  api: ApiClient,
  documentId: string,
  title: string,
  format: ExportFormat,
): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ExportTimeout()), EXPORT_WAIT_MS);
  let blob: Blob;
  let name: string;
  try {
    const response = await api.fetch('GET', `/documents/${documentId}/export`, {
      query: { format },
      headers: { accept: '*/*' },
      signal: controller.signal,
    });
    name =
      fileNameFromDisposition(response.headers.get('content-disposition')) ??
      fileNameFromTitle(title, EXPORT_FORMATS[format].extension);
    blob = await response.blob();
  } catch (error) {
    if (controller.signal.aborted) throw new ExportTimeout();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  saveBlob(blob, name);
  return name;
}

/** What to tell the person when an export failed, by what went wrong. */
export function exportErrorMessage(error: unknown, label: string): string {
  if (error instanceof ExportTimeout) {
    return `The ${label} export took too long and was stopped. Try again in a moment.`;
  }
  if (error instanceof ApiError) {
    if (error.status === 429) {
      return `Too many exports are running for you at once. Wait until one has finished, then export the ${label} again.`;
    }
    if (error.status === 503 || error.status === 502 || error.status === 504) {
      return `The export service is busy or unavailable right now, so the ${label} was not made. Try again in a minute.`;
    }
    if (error.status === 404) return 'This document no longer exists, so it cannot be exported.';
    return `The ${label} export failed: ${error.message}`;
  }
  return `The ${label} export could not be downloaded: the connection failed. Check your network and try again.`;
}
