// Long work as jobs (ARCHITECTURE 5.19): zips of many documents, and imports. Each call answers the
// job's id; GET /jobs/{id} (queries.ts, jobQuery) tells how far it is.
import { formatFileSize } from './attachments';
import { type ApiClient, ApiError, type UploadOptions } from './client';
import { fileNameFromDisposition } from './export-download';
import { saveBlob } from './save-blob';
import type { Job, TreeExportFormat } from './types';

/** The formats of a zip, in the order the dialogs offer them, with what they are called there. */
export const TREE_EXPORT_FORMATS: ReadonlyArray<{ format: TreeExportFormat; label: string }> = [
  { format: 'markdown', label: 'Markdown' },
  { format: 'html', label: 'HTML' },
  { format: 'pdf', label: 'PDF' },
  { format: 'docx', label: 'Word' },
];

/** What the file input offers (the server judges by the name too: `.markdown` is also taken). */
export const IMPORT_ACCEPT = '.md,.markdown,.html,.htm,.docx,.zip';

/**
 * The import service's default bound (IMPORT_MAX_BYTES), said only when a 413 does not name the
 * configured one (the dialog reads that from GET /documents/import).
 */
const IMPORT_DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** Refuses a file past the server's limit before any byte is uploaded (the server refuses it too). */
export function importSizeError(file: Pick<File, 'name' | 'size'>, maxBytes: number): string | null {
  return file.size > maxBytes
    ? `“${file.name}” is too large to import: files may be at most ${formatFileSize(maxBytes)}.`
    : null;
}

export async function startDocumentExport(
  api: ApiClient,
  documentId: string,
  format: TreeExportFormat,
): Promise<string> {
  const { jobId } = await api.post<{ jobId: string }>(`/documents/${documentId}/export`, {
    format,
    includeChildren: true,
  });
  return jobId;
}

export async function startWorkspaceExport(
  api: ApiClient,
  workspaceId: string,
  format: TreeExportFormat,
): Promise<string> {
  const { jobId } = await api.post<{ jobId: string }>(`/workspaces/${workspaceId}/export`, { format });
  return jobId;
}

export async function startImport(
  api: ApiClient,
  place: { workspaceId: string; parentId: string | null },
  file: File,
  options?: UploadOptions,
): Promise<string> {
  const form = new FormData();
  // The fields before the file: the service checks the right to import before reading the bytes.
  form.append('workspaceId', place.workspaceId);
  if (place.parentId) form.append('parentId', place.parentId);
  form.append('file', file, file.name);
  const { jobId } = await api.upload<{ jobId: string }>('/documents/import', form, options);
  return jobId;
}

/** Fetches a finished export's zip with the session's token (a plain link could not carry it) and saves it. */
export async function downloadJobFile(api: ApiClient, job: Pick<Job, 'id' | 'result'>): Promise<string> {
  const url = job.result?.downloadUrl ?? `/api/v1/jobs/${job.id}/download`;
  const path = url.replace(/^\/api\/v1(?=\/)/, '');
  const response = await api.fetch('GET', path, { headers: { accept: 'application/zip, */*' } });
  const name = fileNameFromDisposition(response.headers.get('content-disposition')) ?? 'export.zip';
  saveBlob(await response.blob(), name);
  return name;
}

/** Why a job could not start, for an export or an import (`fileName`). */
export function jobStartErrorMessage(error: unknown, what: 'export' | 'import', fileName?: string): string {
  const file = fileName ? `“${fileName}”` : 'The file';
  if (!(error instanceof ApiError)) {
    return `The ${what} could not be started: the connection failed. Check your network and try again.`;
  }
  if (error.code === 'EXPORTS_BUSY' || error.status === 429) {
    return 'Too many of your imports and exports are running at once. Wait until one has finished, then try again.';
  }
  if (error.code === 'DOCUMENT_ARCHIVED') {
    return what === 'import'
      ? 'This page is archived: restore it before importing under it, or import at the top level.'
      : 'This document is archived: restore it before exporting it.';
  }
  if (error.status === 413) {
    const limit = /at most (\d+) bytes/.exec(error.message);
    const size = formatFileSize(limit ? Number(limit[1]) : IMPORT_DEFAULT_MAX_BYTES);
    return `${file} is too large to import: files may be at most ${size}.`;
  }
  if (error.status === 400 && what === 'import') {
    return `${file} cannot be imported: only Markdown (.md), HTML (.html, .htm) and Word (.docx) files, or a .zip of them, are taken.`;
  }
  if (error.status === 403) {
    return what === 'import'
      ? 'You may not import here: importing needs the Editor role or above in this workspace.'
      : 'You may not export this: you need to be a member of its workspace.';
  }
  if (error.status === 404) {
    return what === 'import'
      ? 'The page to import under no longer exists.'
      : 'This no longer exists, so it cannot be exported.';
  }
  if (error.status >= 502 && error.status <= 504) {
    return `The ${what} service is busy or unavailable right now. Try again in a minute.`;
  }
  return `The ${what} could not be started: ${error.message}`;
}
