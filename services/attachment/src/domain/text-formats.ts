/** The kinds of upload whose text is extracted for search (ARCHITECTURE 5.20). */
export type TextFormat = 'pdf' | 'docx' | 'html' | 'text';

const BY_TYPE: Record<string, TextFormat> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'text/plain': 'text',
  'text/markdown': 'text',
  'text/csv': 'text',
};
const BY_EXTENSION: Record<string, TextFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  txt: 'text',
  md: 'text',
  markdown: 'text',
  csv: 'text',
};

/**
 * What to extract the text of a file as, or null (images, archives, anything else). The stored
 * type decides (the service sniffed it at upload); a generic type falls back to the name's
 * extension, as text files often arrive as application/octet-stream.
 */
export function textFormatOf(mimeType: string, fileName: string): TextFormat | null {
  const type = mimeType.split(';')[0].trim().toLowerCase();
  if (BY_TYPE[type]) return BY_TYPE[type];
  if (type !== 'application/octet-stream' && type !== 'application/zip') return null;
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const byName = BY_EXTENSION[extension] ?? null;
  // A .docx is a zip; a zip named otherwise is not text.
  return type === 'application/zip' && byName !== 'docx' ? null : byName;
}
