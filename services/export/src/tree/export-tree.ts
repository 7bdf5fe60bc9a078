import type { ServiceClient } from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import { UnrecoverableError } from 'bullmq';
import { readDocument } from '../domain/model.js';
import { DOCUMENT_GONE } from '../queue/jobs.js';
import { FILE_POLICY, type HtmlImages, renderHtml } from '../render/html.js';
import { ATTACHMENT_FILE_MAX_BYTES, attachmentKeyOf, type ImageSource, loadImages } from '../render/images.js';
import { renderMarkdown } from '../render/markdown.js';
import type { PdfRenderer } from '../render/pdf.js';
import { parseTreeParams, TREE_EXTENSIONS, type TreeFormat } from './formats.js';
import { imageUrlsOf, relativeLink, relinkDocument } from './links.js';
import { SiblingNames, safeSegment } from './names.js';
import { ATTACHMENTS_FOLDER, type PlacedDocument, placeDocuments, readOutline, TREE_MANIFEST } from './outline.js';
import { PdfLinks } from './pdf-links.js';
import { ZipOnDisk } from './zip-file.js';

export interface TreeExportDeps {
  peers: ServiceClient;
  images?: ImageSource;
  storage: ObjectStorage;
  pdf: PdfRenderer;
  imageMaxBytes: number;
  renderDocx(doc: ReturnType<typeof readDocument>, images: Awaited<ReturnType<typeof loadImages>>): Promise<Uint8Array>;
}

/** What the job runner hands an export: its row's fields, and how to report. */
export interface TreeExportJob {
  id: string;
  workspaceId: string;
  params: Record<string, unknown>;
  /** A key of this run's own (a re-run of the same job never overwrites another's file). */
  runId: string;
  requestId?: string;
  /** Marks the job running with its total; false when it already finished (this run stops). */
  start(total: number): Promise<boolean>;
  progress(done: number): Promise<void>;
}

export interface TreeExportOutcome {
  fileKey: string;
  bytes: number;
  documentCount: number;
  fileName: string;
}

/** Where finished tree exports wait for their owner (swept when they expire, db/jobs.ts). */
export const JOB_FILES_PREFIX = 'job-files/';

interface DocumentContent {
  workspaceId: string;
  title: string;
  content: string;
}

function parseContent(data: unknown): DocumentContent {
  const d = data as Partial<Record<keyof DocumentContent, unknown>> | null;
  if (typeof d?.workspaceId !== 'string' || typeof d.title !== 'string' || typeof d.content !== 'string') {
    throw new Error('the document content answer lacks a field');
  }
  return { workspaceId: d.workspaceId, title: d.title, content: d.content };
}

/**
 * PDF renders in flight at once in one tree export: two keep Chromium busy while this process
 * fetches the next document and writes the last file (the worker keeps two pages).
 */
const PDF_RENDERS_AHEAD = 2;

/** The last segment of a storage key as a file name, made safe. */
const attachmentName = (key: string) => safeSegment(key.slice(key.lastIndexOf('/') + 1) || 'attachment');

/**
 * Writes the documents of a tree (or a workspace) into a zip whose folders mirror the tree: a
 * document with children is `Name.<ext>` beside a folder `Name/`. Links between exported documents
 * become relative links to their files (in PDF too, see pdf-links.ts); in Markdown
 * and HTML the attachment images are files under `_attachments/`, in PDF and Word they are
 * embedded as in a single export. A document deleted while the export runs is left out.
 */
export async function exportTree(job: TreeExportJob, deps: TreeExportDeps): Promise<TreeExportOutcome | null> {
  const params = parseTreeParams(job.params);
  const { format } = params;
  const outline = await readOutline(deps.peers, job.workspaceId, job.requestId);
  const placed = placeDocuments(outline, params.documentId ?? null, params.includeChildren);
  if (params.documentId && placed.length === 0) throw new UnrecoverableError(DOCUMENT_GONE);
  if (!(await job.start(placed.length))) return null;

  const ext = TREE_EXTENSIONS[format];
  const pathOf = new Map<string, string[]>(placed.map((p) => [p.id, [...p.folder, `${p.name}.${ext}`]]));
  const files = new SiblingNames();
  const written = new Map<string, string | null>(); // attachment key → its name under _attachments/
  const zip = await ZipOnDisk.create();
  try {
    let done = 0;
    const inOrder: string[] = [];
    const state = { pathOf, files, written, zip };
    // Where the work is Chromium's (another process), the next document is read and printed while
    // the current one finishes; the files still go into the zip in the tree's order.
    const ahead = format === 'pdf' ? PDF_RENDERS_AHEAD : 1;
    const rendering: Promise<Uint8Array | null>[] = [];
    const startRender = (place: PlacedDocument) => {
      const render = renderOne(place, format, job, deps, state);
      render.catch(() => undefined); // awaited in turn below; a failure must not go unhandled meanwhile
      rendering.push(render);
    };
    for (const [index, place] of placed.entries()) {
      for (let next = index + rendering.length; next < placed.length && rendering.length < ahead; next++)
        startRender(placed[next]);
      const bytes = await (rendering.shift() as Promise<Uint8Array | null>);
      const path = (pathOf.get(place.id) as string[]).join('/');
      if (bytes) {
        await zip.add(path, bytes);
        inOrder.push(path);
      }
      done += 1;
      await job.progress(done);
    }
    await zip.add(TREE_MANIFEST, treeManifest(inOrder));
    const size = await zip.finish();
    const fileKey = `${JOB_FILES_PREFIX}${job.id}/${job.runId}.zip`;
    await deps.storage.putFile(fileKey, zip.path, size, 'application/zip');
    return { fileKey, bytes: size, documentCount: placed.length, fileName: `${safeSegment(params.name)}.zip` };
  } finally {
    await zip.discard();
  }
}

/** What `_tree.json` holds: the documents' files in reading order (see TREE_MANIFEST). */
export function treeManifest(paths: readonly string[]): Buffer {
  return Buffer.from(
    `${JSON.stringify({ kind: 'wiki-tree-export', version: 1, documents: paths }, null, 1)}\n`,
    'utf8',
  );
}

interface ZipState {
  pathOf: Map<string, string[]>;
  files: SiblingNames;
  written: Map<string, string | null>;
  zip: ZipOnDisk;
}

async function renderOne(
  place: PlacedDocument,
  format: TreeFormat,
  job: TreeExportJob,
  deps: TreeExportDeps,
  state: ZipState,
): Promise<Uint8Array | null> {
  const found = await deps.peers.get('document', `/internal/documents/${encodeURIComponent(place.id)}/content`, {
    requestId: job.requestId,
    parse: parseContent,
  });
  if (!found || found.workspaceId !== job.workspaceId) return null;
  const doc = readDocument(found.title, found.content);
  const imageFiles =
    format === 'markdown' || format === 'html' ? await writeImages(doc.blocks, job, deps, state) : null;
  // PDF links are printed as placeholders and made relative in the printed file (pdf-links.ts).
  const pdfLinks = format === 'pdf' ? new PdfLinks() : null;
  relinkDocument(doc, {
    document: (id) => {
      const target = state.pathOf.get(id);
      if (!target) return null;
      const relative = relativeLink(place.folder, target);
      return pdfLinks ? pdfLinks.placeholder(relative) : relative;
    },
    file: (url) => {
      const name = imageFiles?.get(url);
      return name ? relativeLink(place.folder, [ATTACHMENTS_FOLDER, name]) : null;
    },
  });
  if (format === 'markdown') return renderMarkdown(doc);
  if (format === 'html') {
    // The images were relinked to their files: the page shows them from there.
    const shown: HtmlImages = new Map();
    for (const url of imageUrlsOf(doc.blocks)) if (!/^[a-z]+:|^\//i.test(url)) shown.set(url, url);
    return Buffer.from(renderHtml(doc, shown, FILE_POLICY), 'utf8');
  }
  const loaded = await loadImages(doc, deps.images, {
    workspaceId: job.workspaceId,
    requestId: job.requestId,
    imageMaxBytes: deps.imageMaxBytes,
  });
  if (format === 'docx') return deps.renderDocx(doc, loaded);
  return (pdfLinks as PdfLinks).apply(await deps.pdf.render(renderHtml(doc, loaded)));
}

/**
 * Writes each attachment of a document (images, and files, videos and audio of its file blocks)
 * into the zip once per export; its file name by URL. One that cannot be had stays a link.
 */
async function writeImages(
  blocks: Parameters<typeof imageUrlsOf>[0],
  job: TreeExportJob,
  deps: TreeExportDeps,
  state: ZipState,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const source = deps.images;
  for (const url of imageUrlsOf(blocks, [], true)) {
    const key = attachmentKeyOf(url);
    if (!key || !source) continue;
    if (!state.written.has(key)) {
      const request = { workspaceId: job.workspaceId, maxBytes: ATTACHMENT_FILE_MAX_BYTES, requestId: job.requestId };
      const bytes = source.loadFile
        ? await source.loadFile(key, request)
        : await source.load(key, { ...request, maxBytes: deps.imageMaxBytes });
      const name = bytes ? state.files.claim(attachmentName(key)) : null;
      if (bytes && name) await state.zip.add(`${ATTACHMENTS_FOLDER}/${name}`, bytes);
      state.written.set(key, name);
    }
    const name = state.written.get(key);
    if (name) names.set(url, name);
  }
  return names;
}
