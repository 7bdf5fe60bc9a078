import { cutText } from '@wiki/http';

/**
 * Plain text of block-editor content (BlockNote's JSON): the text a reader sees, one line per
 * block, nested blocks after their parent, table rows as lines of tab-separated cells. It feeds
 * search (document.created/updated events), the excerpt and the word count.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Props of a mention that may hold the name shown in the editor, most specific first. */
const MENTION_NAME_PROPS = ['name', 'label', 'displayName', 'user', 'title', 'text'];

function mentionText(item: Json): string {
  const props = isObject(item.props) ? item.props : {};
  for (const key of MENTION_NAME_PROPS) {
    const value = props[key];
    if (typeof value === 'string' && value !== '') return `@${value}`;
  }
  return typeof item.text === 'string' ? item.text : '';
}

/** Text of inline content: styled text, links (whose content is text), mentions, plain strings. */
export function inlineText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const item of content) {
    if (typeof item === 'string') {
      out += item;
    } else if (isObject(item)) {
      switch (item.type) {
        case 'text':
          if (typeof item.text === 'string') out += item.text;
          break;
        case 'link':
          out += inlineText(item.content);
          break;
        case 'mention':
          out += mentionText(item);
          break;
        default:
          // Custom inline content: its text, or the text inside it.
          out += typeof item.text === 'string' ? item.text : inlineText(item.content);
      }
    }
  }
  return out;
}

function cellText(cell: unknown): string {
  if (isObject(cell)) return inlineText(cell.content); // { type: 'tableCell', props, content: [...] }
  return inlineText(cell); // an array of inline content, or a string
}

/** A table's rows as lines, cells separated by tabs; empty rows are left out. */
export function tableText(content: Json): string[] {
  const rows = Array.isArray(content.rows) ? content.rows : [];
  const lines: string[] = [];
  for (const row of rows) {
    const cells = isObject(row) && Array.isArray(row.cells) ? row.cells : [];
    const texts = cells.map(cellText);
    if (texts.some((t) => t.trim() !== '')) lines.push(texts.join('\t'));
  }
  return lines;
}

/** The lines one block contributes by itself (without its children). */
export function blockLines(block: Json): string[] {
  const lines: string[] = [];
  const content = block.content;
  if (isObject(content)) {
    if (content.type === 'tableContent') lines.push(...tableText(content));
  } else {
    const text = inlineText(content);
    if (text !== '') lines.push(text);
  }
  // Image, file, video and audio blocks carry what the reader sees in their caption.
  const caption = isObject(block.props) ? block.props.caption : undefined;
  if (typeof caption === 'string' && caption !== '') lines.push(caption);
  return lines;
}

/**
 * Plain text of a block array: every block's lines in document order, children after their
 * parent. Recursion is bounded by the depth the content validator allows.
 */
export function plainTextOf(blocks: unknown): string {
  const lines: string[] = [];
  const walk = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const block of list) {
      if (!isObject(block)) continue;
      lines.push(...blockLines(block));
      walk(block.children);
    }
  };
  walk(blocks);
  return lines.join('\n');
}

export const EXCERPT_LENGTH = 200;

/** The first 200 characters of the plain text (whole code points: an emoji is never cut in half). */
export function excerptOf(plainText: string): string {
  return cutText(plainText, EXCERPT_LENGTH);
}

/** Words: whitespace-separated runs holding at least one letter or digit (a lone "-" is no word). */
export function countWords(plainText: string): number {
  let count = 0;
  for (const token of plainText.split(/\s+/u)) if (/[\p{L}\p{N}]/u.test(token)) count++;
  return count;
}

export interface DerivedText {
  plainText: string;
  excerpt: string;
  wordCount: number;
}

export function deriveText(blocks: unknown): DerivedText {
  return fromPlainText(plainTextOf(blocks));
}

export function fromPlainText(plainText: string): DerivedText {
  return { plainText, excerpt: excerptOf(plainText), wordCount: countWords(plainText) };
}
