import type { Block, ExportDocument, Run } from '../domain/model.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** The web app's address of a document (`/w/<workspace>/d/<document>`), on this site or written out with a host. */
const DOCUMENT_PATH = new RegExp(`^/w/${UUID}/d/(${UUID})/?$`);

/** The document a link points at in the web app, or null. */
export function linkedDocumentId(href: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(href, 'http://wiki.invalid');
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const match = DOCUMENT_PATH.exec(parsed.pathname);
  return match ? (match[1] as string).toLowerCase() : null;
}

/** The address of `target` (zip path segments) from a file in `folder`, each segment percent-encoded. */
export function relativeLink(folder: readonly string[], target: readonly string[]): string {
  let shared = 0;
  while (shared < folder.length && shared < target.length - 1 && folder[shared] === target[shared]) shared += 1;
  const down = target.slice(shared).map(encodeURIComponent).join('/');
  return `${'../'.repeat(folder.length - shared)}${down}`;
}

export interface Relinks {
  /** The new address of a link to a document, or null to keep it as it is. */
  document(id: string): string | null;
  /** The new address of an image's or a file's attachment, or null to keep it as it is. */
  file(url: string): string | null;
}

function relinkRuns(runs: Run[], relinks: Relinks): void {
  for (const run of runs) {
    if (!run.href) continue;
    const id = linkedDocumentId(run.href);
    const to = id ? relinks.document(id) : null;
    if (to) run.href = to;
  }
}

function relinkBlocks(blocks: Block[], relinks: Relinks): void {
  for (const block of blocks) {
    if ('runs' in block) relinkRuns(block.runs, relinks);
    if (block.kind === 'table') for (const row of block.rows) for (const cell of row) relinkRuns(cell, relinks);
    if ((block.kind === 'image' || block.kind === 'media') && block.url)
      block.url = relinks.file(block.url) ?? block.url;
    if ('children' in block) relinkBlocks(block.children, relinks);
  }
}

/** Points the links between exported documents and the images written into the zip at their files (in place). */
export function relinkDocument(doc: ExportDocument, relinks: Relinks): ExportDocument {
  relinkBlocks(doc.blocks, relinks);
  return doc;
}

/** Every image address of a document (with `media`, file, video and audio ones too), once each, in reading order. */
export function imageUrlsOf(blocks: readonly Block[], out: string[] = [], media = false): string[] {
  for (const block of blocks) {
    const holds = block.kind === 'image' || (media && block.kind === 'media');
    if (holds && block.url && !out.includes(block.url)) out.push(block.url);
    if ('children' in block) imageUrlsOf(block.children, out, media);
  }
  return out;
}
