import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The built app's `index.html` as the gateway serves it. */
export interface IndexPage {
  html: string;
  /** A strong validator of `html`, for `If-None-Match`. */
  etag: string;
  /** The CSP of an answer carrying `html` (its inline scripts allowed by hash). */
  policy: string;
}

/**
 * `<webDir>/index.html`, read again whenever its size or modification time changes (a rebuild
 * while the gateway runs is served at once, with its new asset names), else kept in memory.
 * `policyFor` makes the page's CSP from the hashes of its inline scripts.
 */
export class IndexPages {
  private cached: { mtimeMs: number; size: number; page: IndexPage } | undefined;

  constructor(
    private readonly webDir: string,
    private readonly policyFor: (scriptHashes: string[]) => string,
  ) {}

  /** The page, or undefined when the app is not built. */
  async current(): Promise<IndexPage | undefined> {
    const file = join(this.webDir, 'index.html');
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const cached = this.cached;
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.page;
    const html = await readFile(file, 'utf8').catch(() => undefined);
    if (html === undefined) return undefined;
    const page = {
      html,
      etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`,
      policy: this.policyFor(inlineScriptHashes(html)),
    };
    this.cached = { mtimeMs: info.mtimeMs, size: info.size, page };
    return page;
  }
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const HAS_SRC = /(^|\s)src\s*=/i;

/**
 * CSP source hashes (`sha256-…`) of the inline scripts of a page, e.g. one that applies the theme
 * before first paint: the policy allows exactly these, no other inline script.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes, body] of html.matchAll(SCRIPT)) {
    if (HAS_SRC.test(attributes) || body.trim() === '') continue;
    hashes.add(`sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}`);
  }
  return [...hashes];
}

/** Text made safe for HTML text and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export interface HeadTags {
  title: string;
  /** Left out when empty. */
  description: string;
}

const TITLE = /<title\b[^>]*>[\s\S]*?<\/title\s*>/gi;
const PREVIEW_META =
  /<meta\b[^>]*\b(?:name\s*=\s*["']?description|property\s*=\s*["']?og:(?:title|description|type))\b[^>]*>/gi;
const HEAD_END = /<\/head\s*>/i;

/**
 * The page with its title, description and Open Graph tags set for a link preview: the page's
 * own title and such tags are replaced, the new ones go at the end of its head.
 */
export function withHeadTags(html: string, tags: HeadTags): string {
  const title = escapeHtml(tags.title);
  const description = escapeHtml(tags.description);
  const lines = [
    `<title>${title}</title>`,
    `<meta property="og:title" content="${title}">`,
    `<meta property="og:type" content="article">`,
    ...(description
      ? [
          `<meta name="description" content="${description}">`,
          `<meta property="og:description" content="${description}">`,
        ]
      : []),
  ];
  const tagsHtml = lines.join('\n    ');
  // Only the head is touched: an SVG of the body may hold a <title> of its own.
  const end = HEAD_END.exec(html);
  if (!end) return `${tagsHtml}\n${html}`;
  const head = html.slice(0, end.index).replace(TITLE, '').replace(PREVIEW_META, '');
  return `${head}    ${tagsHtml}\n  ${html.slice(end.index)}`;
}
