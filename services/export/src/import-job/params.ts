import { posix } from 'node:path';

/** What an import job's row carries: where its upload waits, its name (the type), and the import's place. */
export interface ImportParams {
  uploadKey: string;
  fileName: string;
  parentId: string | null;
}

/** The file types an import takes, by name (the converters read the bytes). */
export const IMPORT_EXTENSIONS = ['.md', '.markdown', '.html', '.htm', '.docx', '.zip'] as const;

/** Uploads wait here until their job ends (not under `exports/`, which the export sweep empties). */
export const IMPORT_UPLOAD_PREFIX = 'import-uploads/';
export const uploadKeyOf = (id: string) => `${IMPORT_UPLOAD_PREFIX}${id}`;

/** Why a file name is not importable, or null when it is. */
export function importTypeError(fileName: string | undefined): string | null {
  const name = posix.basename((fileName ?? '').replace(/\\/g, '/')).toLowerCase();
  if (IMPORT_EXTENSIONS.some((extension) => name.endsWith(extension) && name.length > extension.length)) return null;
  return `"${name}" cannot be imported: the file must be one of ${IMPORT_EXTENSIONS.join(', ')}`;
}

export function parseImportParams(params: Record<string, unknown>): ImportParams {
  const { uploadKey, fileName, parentId } = params;
  if (typeof uploadKey !== 'string' || typeof fileName !== 'string') throw new Error('the import job lacks its upload');
  return { uploadKey, fileName, parentId: typeof parentId === 'string' ? parentId : null };
}
