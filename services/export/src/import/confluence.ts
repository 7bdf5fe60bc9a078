import { posix } from 'node:path';
import { decodeHtml } from './charset.js';
import { attr, byId, byTag, type Element, elements, innerHtml, parseDocument, textOf } from './convert/dom.js';
import { bodyOf, elementToBlocks } from './convert/html.js';
import { resolveRelative, stem } from './paths.js';
import type { SourceDoc } from './source.js';
import type { ArchiveFile } from './zip.js';

/**
 * Confluence's HTML space export: `index.html` lists the space's pages (in the space's order);
 * each page is `Title_<pageId>.html` (or `<pageId>.html`) at the top level with an
 * `<ol id="breadcrumbs">` of links from the space (`index.html`) down through the page's
 * ancestors, its title in `#title-text` as "Space : Title", its body in `#main-content`;
 * attachments live in `attachments/<pageId>/`, Confluence's icons and CSS in `images/`, `styles/`.
 */

/** A page in the encoding it declares (Confluence writes UTF-8 with a `<meta>` saying so). */
const pageText = (file: ArchiveFile) => decodeHtml(file.bytes);

/** A page of the export: an HTML file in the export's top folder (`base`), other than `index.html`. */
const isPage = (path: string, base: string) =>
  path.startsWith(base) &&
  !path.slice(base.length).includes('/') &&
  /\.html?$/i.test(path) &&
  path !== `${base}index.html`;

export function isConfluenceExport(files: ReadonlyMap<string, ArchiveFile>, base: string): boolean {
  if (!files.has(`${base}index.html`)) return false;
  for (const [path, file] of files) {
    if (!isPage(path, base)) continue;
    const text = pageText(file);
    if (text.includes('id="breadcrumbs"') || text.includes('id="main-content"')) return true;
  }
  return false;
}

/** Paths of Confluence's own page furniture, which no warning needs to mention. */
export const isConfluenceChrome = (path: string, base: string): boolean =>
  path === `${base}index.html` || (path.startsWith(base) && /^(images|styles)\//.test(path.slice(base.length)));

interface Page {
  path: string;
  title: string;
  parent: string | null;
  body: string;
}

const text = (element: Element | undefined) => (element ? textOf(element).replace(/\s+/g, ' ').trim() : '');

function readPage(path: string, html: string): Page {
  const doc = parseDocument(html);
  const breadcrumbs = byId(doc, 'breadcrumbs');
  const crumbs = breadcrumbs ? byTag(breadcrumbs, 'a').filter((a) => attr(a, 'href')) : [];
  const space = text(crumbs[0]);
  let title = text(byId(doc, 'title-text')) || text(byTag(doc, 'title')[0]);
  if (space && title.startsWith(`${space} : `)) title = title.slice(space.length + 3).trim();
  const parents = crumbs
    .map((a) => resolveRelative(path, attr(a, 'href') ?? ''))
    .filter(
      (target): target is string => target !== null && posix.basename(target) !== 'index.html' && target !== path,
    );
  return {
    path,
    title: title || stem(posix.basename(path)).replace(/_\d+$/, ''),
    parent: parents.at(-1) ?? null,
    body: innerHtml(byId(doc, 'main-content') ?? byTag(doc, 'body')[0] ?? doc),
  };
}

/** Each page's place in `index.html`'s listing, which is the space's own order. */
function indexOrder(index: ArchiveFile): Map<string, number> {
  const order = new Map<string, number>();
  for (const a of elements(parseDocument(pageText(index))).filter((e) => e.tagName === 'a')) {
    const target = resolveRelative(index.path, attr(a, 'href') ?? '');
    if (target && !order.has(target)) order.set(target, order.size);
  }
  return order;
}

/** The export's pages as a tree (breadcrumbs give each page's parent); pages whose parent is missing are roots. */
export function confluenceTree(
  files: ReadonlyMap<string, ArchiveFile>,
  base: string,
): { roots: SourceDoc[]; orphans: string[] } {
  const pages = new Map<string, Page>();
  for (const [path, file] of files) {
    if (!isPage(path, base)) continue;
    pages.set(path, readPage(path, pageText(file)));
  }
  const nodes = new Map<string, SourceDoc>();
  for (const page of pages.values()) {
    nodes.set(page.path, {
      path: page.path,
      fallbackTitle: page.title,
      convert: async () => {
        return { title: page.title, blocks: await elementToBlocks(bodyOf(`<body>${page.body}</body>`)) };
      },
      children: [],
    });
  }
  const roots: SourceDoc[] = [];
  const orphans: string[] = [];
  for (const page of pages.values()) {
    const node = nodes.get(page.path) as SourceDoc;
    const parent = page.parent ? nodes.get(page.parent) : undefined;
    if (page.parent && !parent) orphans.push(page.path);
    (parent ? parent.children : roots).push(node);
  }
  breakCycles(roots, nodes, orphans);
  const index = files.get(`${base}index.html`);
  const order = index ? indexOrder(index) : new Map<string, number>();
  const rank = (node: SourceDoc) => order.get(node.path) ?? Number.MAX_SAFE_INTEGER;
  const sort = (list: SourceDoc[]) => {
    list.sort((a, b) => rank(a) - rank(b) || a.fallbackTitle.localeCompare(b.fallbackTitle));
    for (const node of list) sort(node.children);
  };
  sort(roots);
  return { roots, orphans };
}

/** Breadcrumbs that loop (hand-edited files) would hide pages from every root: such pages become roots. */
function breakCycles(roots: SourceDoc[], nodes: Map<string, SourceDoc>, orphans: string[]): void {
  const reached = new Set<SourceDoc>();
  const walk = (node: SourceDoc) => {
    reached.add(node);
    for (const child of node.children) walk(child);
  };
  for (const root of roots) walk(root);
  for (const node of nodes.values()) {
    if (reached.has(node)) continue;
    for (const other of nodes.values()) other.children = other.children.filter((child) => child !== node);
    roots.push(node);
    orphans.push(node.path);
    walk(node);
  }
}
