import type { Json } from '../blocks.js';
import { blockNote } from './blocknote.js';
import {
  attr,
  byTag,
  type Element,
  element,
  elements,
  hasClass,
  innerHtml,
  parseDocument,
  remove,
  replaceWith,
  text,
  textOf,
} from './dom.js';

/** Elements whose content is never document text, or that could run or load something. */
const DROPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'link',
  'meta',
  'base',
  'svg',
  'math',
  'canvas',
  'audio',
  'video',
  'form',
  'button',
  'select',
  'textarea',
]);

/** The language of a code block: `language-x` / `lang-x` classes, or Confluence's `brush: x`. */
function codeLanguage(pre: Element): string {
  const code = byTag(pre, 'code')[0];
  const classes = `${attr(pre, 'class') ?? ''} ${code ? (attr(code, 'class') ?? '') : ''}`;
  const fromClass = /(?:^|\s)lang(?:uage)?-([A-Za-z0-9+#._-]+)/.exec(classes)?.[1];
  const brush = /(?:^|;)\s*brush:\s*([A-Za-z0-9+#._-]+)/.exec(attr(pre, 'data-syntaxhighlighter-params') ?? '')?.[1];
  return (fromClass ?? brush ?? '').toLowerCase();
}

/**
 * Rewrites what BlockNote's HTML parser would misread into the forms it reads as the editor
 * writes them: `<pre>` text as `<pre><code class="language-x">`, Confluence's task lists as
 * check boxes, emoticons as their text, several paragraphs of a table cell as lines of one.
 */
export function normaliseHtml(root: Element): void {
  for (const node of elements(root)) {
    const checkbox = node.tagName === 'input' && attr(node, 'type') === 'checkbox';
    if (DROPPED.has(node.tagName) || (node.tagName === 'input' && !checkbox)) remove(node);
  }
  for (const pre of byTag(root, 'pre')) {
    const language = codeLanguage(pre);
    replaceWith(
      pre,
      element('pre', {}, [element('code', language ? { class: `language-${language}` } : {}, [text(textOf(pre))])]),
    );
  }
  for (const list of elements(root).filter((e) => e.tagName === 'ul' && hasClass(e, 'inline-task-list'))) {
    for (const item of list.childNodes) {
      if (!('tagName' in item) || item.tagName !== 'li') continue;
      const box = element(
        'input',
        hasClass(item, 'checked') ? { type: 'checkbox', checked: '' } : { type: 'checkbox' },
      );
      box.parentNode = item;
      item.childNodes.unshift(box);
    }
  }
  for (const image of byTag(root, 'img').filter((e) => hasClass(e, 'emoticon'))) {
    replaceWith(image, text(attr(image, 'alt') ?? ''));
  }
  liftImages(root);
  for (const cell of byTag(root, 'td', 'th')) {
    const paragraphs = cell.childNodes.filter((child): child is Element => 'tagName' in child && child.tagName === 'p');
    if (paragraphs.length < 2) continue;
    paragraphs.forEach((paragraph, i) => {
      replaceWith(paragraph, ...(i > 0 ? [element('br')] : []), ...paragraph.childNodes);
    });
  }
}

/** Block elements an image may sit inside; BlockNote keeps an image only as a block of its own. */
const HOLDERS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'td', 'th', 'blockquote', 'pre']);

function holderOf(node: Element): Element | null {
  let at = node.parentNode;
  while (at && 'tagName' in at) {
    if (HOLDERS.has(at.tagName)) return at;
    at = at.parentNode;
  }
  return null;
}

/**
 * An image inside text (`<p>see <img> here</p>`) would be dropped by BlockNote's parser: it is
 * moved into a paragraph of its own after that block (after the table, for a cell; at the end
 * of a list item, as its child).
 */
function liftImages(root: Element): void {
  for (const image of byTag(root, 'img')) {
    const holder = holderOf(image);
    if (!holder || textOf(holder).trim() === '') continue;
    remove(image);
    const paragraph = element('p', {}, [image]);
    if (holder.tagName === 'li') {
      paragraph.parentNode = holder;
      holder.childNodes.push(paragraph);
      continue;
    }
    let after: Element = holder;
    if (holder.tagName === 'td' || holder.tagName === 'th') {
      let table = holder.parentNode;
      while (table && 'tagName' in table && table.tagName !== 'table') table = table.parentNode;
      if (table && 'tagName' in table) after = table;
    }
    const parent = after.parentNode;
    if (!parent) continue;
    paragraph.parentNode = parent;
    parent.childNodes.splice(parent.childNodes.indexOf(after) + 1, 0, paragraph);
  }
}

/** An element's content as BlockNote blocks, after `normaliseHtml`. */
export async function elementToBlocks(root: Element): Promise<Json[]> {
  normaliseHtml(root);
  const source = innerHtml(root);
  if (source.trim() === '') return [];
  return (await blockNote()).html(source);
}

/** The `<body>` of an HTML page or fragment. */
export function bodyOf(source: string): Element {
  return byTag(parseDocument(source), 'body')[0] ?? element('body');
}

/** An HTML file as blocks, with its `<title>`. */
export async function htmlToBlocks(source: string): Promise<{ title: string | null; blocks: Json[] }> {
  const doc = parseDocument(source);
  const titleElement = byTag(doc, 'title')[0];
  const title = titleElement ? textOf(titleElement).trim() || null : null;
  const body = byTag(doc, 'body')[0];
  return { title, blocks: body ? await elementToBlocks(body) : [] };
}
