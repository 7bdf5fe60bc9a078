import { posix } from 'node:path';
import { ImportRefusedError } from './errors.js';
import { extensionOf } from './paths.js';
import { buildImportPlan, type ImportPlan, type PlanOptions } from './plan.js';
import { isDocumentPath } from './tree.js';
import { readZip, ZIP_LIMITS, type ZipLimits } from './zip.js';

export { ImportRefusedError } from './errors.js';
export { plannedKey } from './keys.js';
export { ATTACHMENT_URL, DOCUMENT_LINK, type PlaceholderUrls, resolvePlaceholders } from './placeholders.js';
export * from './plan.js';
export { type ArchiveFile, readZip, ZIP_LIMITS, type ZipLimits } from './zip.js';

/**
 * The plan of one upload (ARCHITECTURE 5.19): a `.zip` is read within the limits and planned as
 * a tree; a lone `.md`, `.html` or `.docx` is one document. Anything else is refused.
 */
export async function planUpload(
  fileName: string,
  bytes: Buffer,
  options: PlanOptions & { limits?: ZipLimits } = {},
): Promise<ImportPlan> {
  const name = posix.basename(fileName.replace(/\\/g, '/')).normalize('NFC');
  if (extensionOf(name) === 'zip') return buildImportPlan(await readZip(bytes, options.limits ?? ZIP_LIMITS), options);
  if (!isDocumentPath(name)) {
    throw new ImportRefusedError(`"${name}" is not a .md, .html, .docx or .zip file`, name);
  }
  return buildImportPlan([{ path: name, bytes }], options);
}
