import { posix } from 'node:path';
import { decodeHtml, decodeText } from './charset.js';
import { docxToBlocks } from './convert/docx.js';
import { htmlToBlocks } from './convert/html.js';
import { markdownToBlocks } from './convert/markdown.js';
import { extensionOf, matchKey, stem, titleFromName } from './paths.js';
import type { Converted, SourceDoc } from './source.js';
import type { ArchiveFile } from './zip.js';

/** File types that become documents, and how each is read; the earlier wins a folder's match. */
export const DOCUMENT_TYPES = ['md', 'markdown', 'html', 'htm', 'docx'] as const;

export const isDocumentPath = (path: string): boolean =>
  (DOCUMENT_TYPES as readonly string[]).includes(extensionOf(path));

export function converterFor(file: ArchiveFile): () => Promise<Converted> {
  const extension = extensionOf(file.path);
  if (extension === 'docx') return () => docxToBlocks(file.bytes).then((r) => ({ title: null, ...r }));
  return extension === 'html' || extension === 'htm'
    ? () => htmlToBlocks(decodeHtml(file.bytes))
    : () => markdownToBlocks(decodeText(file.bytes));
}

interface Folder {
  path: string;
  name: string;
  folders: Map<string, Folder>;
  files: ArchiveFile[];
}

function foldersOf(files: Iterable<ArchiveFile>): Folder {
  const root: Folder = { path: '', name: '', folders: new Map(), files: [] };
  for (const file of files) {
    const parts = file.path.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) {
        next = { path: folder.path ? `${folder.path}/${part}` : part, name: part, folders: new Map(), files: [] };
        folder.folders.set(part, next);
      }
      folder = next;
    }
    folder.files.push(file);
  }
  return root;
}

/**
 * A table the import does not take: Notion writes a database as `Name <id>.csv` (newer exports
 * also `Name <id>_all.csv`) beside a folder `Name <id>/` of its rows' pages.
 */
export const isTable = (path: string): boolean => extensionOf(path) === 'csv';

/** What a table is matched with its folder by, as a page's file is (the id, else the name). */
const tableKey = (path: string): string => matchKey(stem(posix.basename(path)).replace(/_all$/i, ''));

const holdsDocuments = (folder: Folder): boolean =>
  folder.files.some((file) => isDocumentPath(file.path)) || [...folder.folders.values()].some(holdsDocuments);

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Our own tree export's list of its documents' files in reading order, at the root of its zip. */
export const TREE_MANIFEST = '_tree.json';

/**
 * Each document file's place in the manifest at the root of `folder` (paths as the archive has
 * them), or an empty map when there is none or it is not ours: siblings are then ordered by name.
 */
function manifestOrder(folder: Folder): Map<string, number> {
  const order = new Map<string, number>();
  const file = folder.files.find((f) => f.path === (folder.path ? `${folder.path}/` : '') + TREE_MANIFEST);
  if (!file) return order;
  let manifest: { kind?: unknown; documents?: unknown };
  try {
    manifest = JSON.parse(file.bytes.toString('utf8'));
  } catch {
    return order;
  }
  if (manifest?.kind !== 'wiki-tree-export' || !Array.isArray(manifest.documents)) return order;
  const prefix = folder.path ? `${folder.path}/` : '';
  for (const [i, path] of manifest.documents.entries()) {
    if (typeof path === 'string') order.set(`${prefix}${path.normalize('NFC')}`, i);
  }
  return order;
}

function documentsOf(folder: Folder, order: Map<string, number>): SourceDoc[] {
  const docs = folder.files
    .filter((file) => isDocumentPath(file.path))
    .sort(
      (a, b) =>
        DOCUMENT_TYPES.indexOf(extensionOf(a.path) as never) - DOCUMENT_TYPES.indexOf(extensionOf(b.path) as never),
    )
    .map(
      (file): SourceDoc => ({
        path: file.path,
        fallbackTitle: titleFromName(stem(posix.basename(file.path))),
        convert: converterFor(file),
        children: [],
      }),
    );
  const byKey = new Map<string, SourceDoc>();
  for (const doc of docs) {
    const key = matchKey(stem(posix.basename(doc.path)));
    if (!byKey.has(key)) byKey.set(key, doc);
  }
  const nodes = [...docs];
  for (const sub of folder.folders.values()) {
    if (!holdsDocuments(sub)) continue;
    const own = byKey.get(matchKey(sub.name));
    if (own && own.children.length === 0) {
      own.children = documentsOf(sub, order);
      own.aliases = [sub.path];
    } else {
      // A database's table beside the folder of its pages: links to the table lead to the folder.
      const tables = folder.files.filter((file) => isTable(file.path) && tableKey(file.path) === matchKey(sub.name));
      nodes.push({
        path: `${sub.path}/`,
        fallbackTitle: titleFromName(sub.name),
        convert: null,
        children: documentsOf(sub, order),
        ...(tables.length > 0 ? { aliases: tables.map((file) => file.path) } : {}),
      });
    }
  }
  const nameOf = (node: SourceDoc) => posix.basename(node.path.replace(/\/$/, ''));
  // Files the manifest lists first, in its order; the rest after them by name.
  const placeOf = (node: SourceDoc) => order.get(node.path) ?? Number.POSITIVE_INFINITY;
  return nodes.sort((a, b) => placeOf(a) - placeOf(b) || collator.compare(nameOf(a), nameOf(b)));
}

/**
 * Folders and files as a tree of documents: a file `X.md` beside a folder `X/` is that folder's
 * document (matched by Notion's id where names carry one); a folder without one becomes an empty
 * document named after it; folders with no document anywhere inside (images, assets) are none.
 * An archive that wraps everything in one folder (as zipping a folder does) is read from inside it.
 */
export function folderTree(files: Iterable<ArchiveFile>): SourceDoc[] {
  const root = unwrapped(foldersOf(files));
  return documentsOf(root, manifestOrder(root));
}

function unwrapped(root: Folder): Folder {
  let folder = root;
  while (folder.files.length === 0 && folder.folders.size === 1) folder = [...folder.folders.values()][0];
  return folder;
}

/** The folder the archive's content starts in (`''`, or `name/` when one folder wraps it all). */
export function contentRoot(files: Iterable<ArchiveFile>): string {
  const folder = unwrapped(foldersOf(files));
  return folder.path === '' ? '' : `${folder.path}/`;
}
