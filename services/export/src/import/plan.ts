import { posix } from 'node:path';
import { type Json, rewriteRefs, takeTitleHeading, withoutIds } from './blocks.js';
import { confluenceTree, isConfluenceChrome, isConfluenceExport } from './confluence.js';
import { ImportRefusedError } from './errors.js';
import { plannedKey, randomSeed } from './keys.js';
import { resolveRelative } from './paths.js';
import { ATTACHMENT_URL, DOCUMENT_LINK } from './placeholders.js';
import { sniffImage } from './sniff.js';
import type { SourceDoc } from './source.js';
import { contentRoot, folderTree, isDocumentPath, isTable, TREE_MANIFEST } from './tree.js';
import type { ArchiveFile } from './zip.js';

export interface PlannedDocument {
  key: string;
  parentKey: string | null;
  title: string;
  /** BlockNote blocks; links and image URLs of other planned items are placeholders. */
  content: Json[];
  /** Place among its siblings, from 0. */
  order: number;
  /** The archive path it was made from (a folder's ends with `/`). */
  source: string;
}

export interface PlannedAttachment {
  key: string;
  documentKey: string;
  fileName: string;
  mime: string;
  bytes: Buffer;
}

export type ImportWarningCode =
  | 'CONVERSION_FAILED'
  | 'UNRESOLVED_LINK'
  | 'MISSING_IMAGE'
  | 'REFUSED_IMAGE'
  | 'NOT_IMPORTED'
  | 'TABLE_NOT_IMPORTED'
  | 'MISSING_PARENT'
  | 'CONTENT_TRUNCATED';

export interface ImportWarning {
  path: string;
  code: ImportWarningCode;
  message: string;
}

/** Parents before their children, siblings in order. */
export interface ImportPlan {
  documents: PlannedDocument[];
  attachments: PlannedAttachment[];
  warnings: ImportWarning[];
}

export interface PlanOptions {
  /** Makes the keys repeatable: the same files and seed plan the same keys (use the job's id). */
  seed?: string;
}

/** What the document service stores at most per document (ARCHITECTURE 5.7). */
export const MAX_CONTENT_BYTES = 2 * 1024 * 1024;
const TITLE_MAX = 500;
const MAX_WARNINGS = 1000;

/** Top-level blocks that fit in the document service's limit, in order; the rest are cut. */
function fitContent(blocks: Json[]): { blocks: Json[]; cut: number } {
  let size = 2;
  for (let i = 0; i < blocks.length; i++) {
    size += Buffer.byteLength(JSON.stringify(blocks[i]), 'utf8') + 1;
    if (size > MAX_CONTENT_BYTES) return { blocks: blocks.slice(0, i), cut: blocks.length - i };
  }
  return { blocks, cut: 0 };
}

const DATA_IMAGE = /^data:([a-z0-9.+/-]*)(;[a-z0-9=-]+)*;base64,(.*)$/is;

/**
 * The import plan of a set of files (an archive's entries, or one uploaded file): the documents
 * to create with their converted content, the images to store as their attachments, and what
 * could not be carried over. Pure: it reads only the given files and creates nothing.
 */
export async function buildImportPlan(input: readonly ArchiveFile[], options: PlanOptions = {}): Promise<ImportPlan> {
  const seed = options.seed ?? randomSeed();
  const files = new Map<string, ArchiveFile>();
  for (const file of input)
    files.set(file.path.normalize('NFC'), { path: file.path.normalize('NFC'), bytes: file.bytes });
  const warnings: ImportWarning[] = [];
  let dropped = 0;
  const warn = (path: string, code: ImportWarningCode, message: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push({ path, code, message });
    else dropped++;
  };

  const base = contentRoot(files.values());
  const confluence = isConfluenceExport(files, base);
  let roots: SourceDoc[];
  if (confluence) {
    const tree = confluenceTree(files, base);
    roots = tree.roots;
    for (const path of tree.orphans)
      warn(path, 'MISSING_PARENT', 'its parent page is not in the export; it is placed at the top');
  } else {
    roots = folderTree(files.values());
  }
  if (roots.length === 0) throw new ImportRefusedError('the upload holds no .md, .html or .docx file');

  const keyOf = new Map<string, string>();
  const index = (nodes: SourceDoc[]) => {
    for (const node of nodes) {
      const key = plannedKey(seed, 'document', node.path);
      keyOf.set(node.path, key);
      if (node.path.endsWith('/')) keyOf.set(node.path.slice(0, -1), key);
      for (const alias of node.aliases ?? []) keyOf.set(alias, key);
      index(node.children);
    }
  };
  index(roots);

  const used = new Set<string>(keyOf.keys());
  // A link to a folder (`Guide/`) leads to its document.
  const linkTarget = (path: string) => keyOf.get(path) ?? keyOf.get(path.replace(/\/$/, ''));
  const documents: PlannedDocument[] = [];
  const attachments: PlannedAttachment[] = [];
  const attachmentOf = new Map<string, PlannedAttachment>();

  const imageOf = async (node: SourceDoc, documentKey: string, url: string): Promise<PlannedAttachment | null> => {
    let bytes: Buffer;
    let name: string;
    let id: string;
    const data = DATA_IMAGE.exec(url);
    if (data) {
      bytes = Buffer.from(data[3], 'base64');
      id = `data:${attachmentOf.size}`;
      name = 'image';
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('/')) {
      warn(node.path, 'REFUSED_IMAGE', `image "${url.slice(0, 200)}" is neither on the web nor in the upload`);
      return null;
    } else {
      const target = resolveRelative(node.path, url);
      const file = target ? files.get(target) : undefined;
      if (!target || !file) {
        warn(node.path, 'MISSING_IMAGE', `image "${url}" is not in the upload`);
        return null;
      }
      used.add(target);
      bytes = file.bytes;
      id = target;
      name = posix.basename(target);
    }
    const known = attachmentOf.get(`${documentKey}\u0000${id}`);
    if (known) return known;
    const type = await sniffImage(bytes);
    if (!type) {
      warn(
        node.path,
        'REFUSED_IMAGE',
        `"${data ? 'data: image' : url}" is not a PNG, JPEG, GIF, WebP, AVIF or BMP image`,
      );
      return null;
    }
    const fileName = data ? `${name}-${attachments.length + 1}.${type.extension}` : name;
    const attachment = {
      key: plannedKey(seed, 'attachment', `${node.path}\u0000${id}`),
      documentKey,
      fileName,
      mime: type.mime,
      bytes,
    };
    attachmentOf.set(`${documentKey}\u0000${id}`, attachment);
    attachments.push(attachment);
    return attachment;
  };

  const plan = async (node: SourceDoc, parentKey: string | null, order: number): Promise<void> => {
    // Converting is CPU work in promises: without a turn of the event loop per document, a large
    // upload would hold off every timer (the job queue's lock renewal, health answers) for minutes.
    await new Promise((resolve) => setImmediate(resolve));
    const key = keyOf.get(node.path) as string;
    let title: string | null = null;
    let content: Json[] = [];
    if (node.convert) {
      try {
        const converted = await node.convert();
        for (const message of converted.messages ?? []) warn(node.path, 'CONVERSION_FAILED', message);
        const heading = takeTitleHeading(withoutIds(converted.blocks), converted.title ?? undefined);
        title = converted.title ?? heading.title;
        content = await rewriteRefs(heading.blocks, {
          link: (href) => {
            if (/^(https?:|mailto:)/i.test(href) || href.startsWith('#')) return href;
            const target = resolveRelative(node.path, href);
            const linked = target ? linkTarget(target) : undefined;
            if (linked) return `${DOCUMENT_LINK}${linked}${/#.+$/.exec(href)?.[0] ?? ''}`;
            warn(
              node.path,
              'UNRESOLVED_LINK',
              `link "${href.slice(0, 200)}" leads to no imported document; its text is kept`,
            );
            return null;
          },
          image: async (url, block) => {
            if (/^https?:/i.test(url)) return block;
            const attachment = await imageOf(node, key, url);
            if (!attachment) return null;
            const props = block.props as Json;
            return {
              ...block,
              props: { ...props, url: `${ATTACHMENT_URL}${attachment.key}`, name: props.name || attachment.fileName },
            };
          },
        });
      } catch (error) {
        warn(
          node.path,
          'CONVERSION_FAILED',
          `the file could not be read (${(error as Error).message}); the document is empty`,
        );
      }
    }
    const fitted = fitContent(content);
    if (fitted.cut > 0)
      warn(node.path, 'CONTENT_TRUNCATED', `the last ${fitted.cut} blocks exceed the 2 MiB a document holds`);
    documents.push({
      key,
      parentKey,
      title: (title?.trim() || node.fallbackTitle || 'Untitled').slice(0, TITLE_MAX),
      content: fitted.blocks,
      order,
      source: node.path,
    });
    for (const [i, child] of node.children.entries()) await plan(child, key, i);
  };
  for (const [i, root] of roots.entries()) await plan(root, null, i);

  for (const path of files.keys()) {
    if (isTable(path)) {
      const pages = documents.find((doc) => doc.key === keyOf.get(path));
      warn(
        path,
        'TABLE_NOT_IMPORTED',
        pages
          ? `a table (a Notion database) is not imported; its pages are, under "${pages.title}"`
          : 'a table (a Notion database) is not imported',
      );
      continue;
    }
    if (used.has(path) || (confluence && isConfluenceChrome(path, base)) || path === `${base}${TREE_MANIFEST}`)
      continue;
    if (!isDocumentPath(path)) warn(path, 'NOT_IMPORTED', 'neither a document nor an image a document shows');
  }
  if (dropped > 0) warnings.push({ path: '', code: 'NOT_IMPORTED', message: `${dropped} more warnings left out` });
  return { documents, attachments, warnings };
}
