import { BACKGROUNDS, type Block, COLOURS, type ExportDocument, type Run } from '../domain/model.js';
import type { LoadedImage } from './images.js';

/**
 * The HTML Chromium prints. Every piece of user text is escaped and every attribute value comes
 * from the model's checked values (safe links, named colours, inlined image bytes), so content
 * cannot add markup; the page also runs with JavaScript off and every request refused (pdf.ts).
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Noto CJK last: Latin text keeps its usual face, Chinese, Japanese and Korean find a glyph.
const FONTS = `"Noto Sans", "DejaVu Sans", "Liberation Sans", Arial, "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", sans-serif`;
const MONO = `"DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK SC", monospace`;

const STYLE = `
@page { size: A4; margin: 18mm 16mm; }
html { font-family: ${FONTS}; font-size: 11pt; line-height: 1.45; color: #1f2328; }
body { margin: 0; }
h1, h2, h3 { line-height: 1.25; margin: 1.1em 0 0.4em; break-after: avoid; page-break-after: avoid; }
h1 { font-size: 1.9em; } h2 { font-size: 1.45em; } h3 { font-size: 1.2em; }
h1.title { margin-top: 0; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; }
p { margin: 0.45em 0; }
ul, ol { margin: 0.3em 0; padding-left: 1.6em; }
li { margin: 0.15em 0; }
ul.check { list-style: none; padding-left: 0.4em; }
ul.check > li::before { content: "\\2610\\00a0"; }
ul.check > li.checked::before { content: "\\2611\\00a0"; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 4px; padding: 8px 10px; font-family: ${MONO};
  font-size: 9.5pt; white-space: pre-wrap; overflow-wrap: anywhere; break-inside: avoid; page-break-inside: avoid; }
code { font-family: ${MONO}; font-size: 0.92em; background: #f0f1f3; padding: 0 3px; border-radius: 3px; }
pre code { background: none; padding: 0; }
blockquote { margin: 0.5em 0; padding: 0.1em 0.9em; border-left: 3px solid #d0d7de; color: #4d5560; }
table { border-collapse: collapse; margin: 0.6em 0; width: 100%; }
tr, td, th { break-inside: avoid; page-break-inside: avoid; }
thead { display: table-header-group; }
td, th { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
figure { margin: 0.6em 0; break-inside: avoid; page-break-inside: avoid; }
figure img { max-width: 100%; max-height: 245mm; display: block; }
figcaption { font-size: 0.9em; color: #57606a; margin-top: 0.2em; }
a { color: #0969da; overflow-wrap: anywhere; }
hr { border: none; border-top: 1px solid #d0d7de; margin: 1em 0; }
.nested { margin-left: 1.4em; }
`;

function runToHtml(run: Run): string {
  let out = escapeHtml(run.text).replace(/\n/g, '<br>');
  if (run.code) out = `<code>${out}</code>`;
  if (run.bold) out = `<strong>${out}</strong>`;
  if (run.italic) out = `<em>${out}</em>`;
  if (run.underline) out = `<u>${out}</u>`;
  if (run.strike) out = `<s>${out}</s>`;
  const css: string[] = [];
  if (run.colour) css.push(`color:#${COLOURS[run.colour]}`);
  if (run.background) css.push(`background:#${BACKGROUNDS[run.background]}`);
  if (css.length > 0) out = `<span style="${css.join(';')}">${out}</span>`;
  if (run.href) out = `<a href="${escapeHtml(run.href)}">${out}</a>`;
  return out;
}

const runsToHtml = (runs: Run[]) => runs.map(runToHtml).join('');

/** An image's bytes to inline, or (a file written beside the page) the relative address to show it from. */
export type HtmlImages = Map<string, LoadedImage | string>;

function nested(children: Block[], images: HtmlImages): string {
  return children.length > 0 ? `<div class="nested">${blocksToHtml(children, images)}</div>` : '';
}

function blockToHtml(block: Block, images: HtmlImages): string {
  switch (block.kind) {
    case 'heading':
      return `<h${block.level}>${runsToHtml(block.runs)}</h${block.level}>${nested(block.children, images)}`;
    case 'paragraph':
      return `<p>${runsToHtml(block.runs) || '&nbsp;'}</p>${nested(block.children, images)}`;
    case 'item': {
      const inner = block.children.length > 0 ? blocksToHtml(block.children, images) : '';
      return `<li${block.checked && block.list === 'check' ? ' class="checked"' : ''}>${runsToHtml(block.runs)}${inner}</li>`;
    }
    case 'code': {
      const lang = block.language ? ` data-language="${escapeHtml(block.language)}"` : '';
      return `<pre${lang}><code>${escapeHtml(block.text)}</code></pre>`;
    }
    case 'quote':
      return `<blockquote><p>${runsToHtml(block.runs)}</p>${nested(block.children, images)}</blockquote>`;
    case 'table': {
      const row = (cells: Run[][], tag: 'th' | 'td') =>
        `<tr>${cells.map((c) => `<${tag}>${runsToHtml(c)}</${tag}>`).join('')}</tr>`;
      const head = block.rows.slice(0, block.headerRows).map((r) => row(r, 'th'));
      const body = block.rows.slice(block.headerRows).map((r) => row(r, 'td'));
      return `<table><thead>${head.join('')}</thead><tbody>${body.join('')}</tbody></table>`;
    }
    case 'image': {
      const image = block.url ? images.get(block.url) : undefined;
      const caption = block.caption ? `<figcaption>${escapeHtml(block.caption)}</figcaption>` : '';
      const width = block.width ? ` style="width:${Math.round(Math.min(block.width, 2000))}px"` : '';
      if (typeof image === 'string') {
        return `<figure><img src="${escapeHtml(image)}" alt="${escapeHtml(block.caption || block.name)}"${width}>${caption}</figure>`;
      }
      if (image) {
        const src = `data:${image.mime};base64,${Buffer.from(image.data).toString('base64')}`;
        return `<figure><img src="${src}" alt="${escapeHtml(block.caption || block.name)}"${width}>${caption}</figure>`;
      }
      // Not embedded (not in attachment storage): a link a reader can follow, fetched by nobody.
      const label = escapeHtml(block.name || block.caption || 'Image');
      return `<p>${block.url ? `<a href="${escapeHtml(block.url)}">${label}</a>` : label}</p>`;
    }
    case 'media': {
      const label = escapeHtml(block.name || block.caption || block.media);
      return `<p>${block.url ? `<a href="${escapeHtml(block.url)}">${label}</a>` : label}</p>`;
    }
    case 'divider':
      return '<hr>';
  }
}

function blocksToHtml(blocks: Block[], images: HtmlImages): string {
  let out = '';
  let open: 'ul' | 'ol' | 'check' | null = null;
  for (const block of blocks) {
    const list =
      block.kind === 'item' ? (block.list === 'numbered' ? 'ol' : block.list === 'check' ? 'check' : 'ul') : null;
    if (open && list !== open) {
      out += open === 'ol' ? '</ol>' : '</ul>';
      open = null;
    }
    if (list && !open) {
      out += list === 'ol' ? '<ol>' : list === 'check' ? '<ul class="check">' : '<ul>';
      open = list;
    }
    out += blockToHtml(block, images);
  }
  if (open) out += open === 'ol' ? '</ol>' : '</ul>';
  return out;
}

/** What Chromium prints: nothing but inlined images. */
const PRINT_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";
/** A page of an HTML export, read from a folder: its images are files beside it; still no script. */
export const FILE_POLICY = "default-src 'none'; img-src data: *; style-src 'unsafe-inline'";

export function renderHtml(doc: ExportDocument, images: HtmlImages = new Map(), policy = PRINT_POLICY): string {
  const title = escapeHtml(doc.title);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}"><title>${title}</title><style>${STYLE}</style></head><body>${
    doc.title.trim() ? `<h1 class="title">${title}</h1>` : ''
  }${blocksToHtml(doc.blocks, images)}</body></html>`;
}
