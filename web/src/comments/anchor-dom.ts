import type { CommentAnchor } from '../api/types';

/**
 * Comment anchors over the editor's DOM. An anchor is a block id and a character range of that
 * block's text, the text as the block's JSON holds it (the concatenated text of its inline content).
 * BlockNote renders each block as `[data-node-type="blockContainer"][data-id]` with its own text in
 * `.bn-block-content .bn-inline-content` (nested blocks sit beside it, not inside). Other people's
 * carets are widgets inside that text: they are not part of it and are skipped.
 */

const BLOCK = '[data-node-type="blockContainer"]';
const WIDGETS = '.bn-collaboration-cursor__base, [contenteditable="false"]';

/** The server's limit on `selectedText`. */
const SELECTED_TEXT_MAX = 2000;

/** The element holding a block's own text, or null (no such block here, or one without text). */
export function inlineContentOf(root: ParentNode, blockId: string): HTMLElement | null {
  const block = root.querySelector(`${BLOCK}[data-id="${CSS.escape(blockId)}"]`);
  return block?.querySelector<HTMLElement>(':scope > .bn-block-content .bn-inline-content') ?? null;
}

function isWidgetText(container: Element, text: Node): boolean {
  const widget = text.parentElement?.closest(WIDGETS);
  return Boolean(widget && widget !== container && container.contains(widget));
}

/** The text nodes that make up the block's text, in order. */
function textNodes(container: Element): Text[] {
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!isWidgetText(container, node)) nodes.push(node as Text);
  }
  return nodes;
}

export const blockTextOf = (container: Element) =>
  textNodes(container)
    .map((node) => node.data)
    .join('');

/** The character position, in the block's text, of a DOM point inside `container`. */
export function textOffset(container: Element, node: Node, offset: number): number {
  const upTo = document.createRange();
  upTo.setStart(container, 0);
  upTo.setEnd(node, offset);
  let count = 0;
  for (const text of textNodes(container)) {
    if (text === node) return count + offset;
    if (!upTo.intersectsNode(text)) break;
    count += text.length;
  }
  return count;
}

/** A DOM range over characters [start, end) of the block's text. */
export function rangeOver(container: Element, start: number, end: number): Range {
  const range = document.createRange();
  range.setStart(container, 0);
  range.setEnd(container, 0);
  let seen = 0;
  let started = false;
  for (const text of textNodes(container)) {
    const next = seen + text.length;
    if (!started && start <= next) {
      range.setStart(text, start - seen);
      started = true;
    }
    if (started && end <= next) {
      range.setEnd(text, end - seen);
      return range;
    }
    seen = next;
  }
  range.setEndAfter(container.lastChild ?? container);
  return range;
}

/** The text of a selection without other people's carets, blocks separated by line breaks. */
function selectedTextOf(range: Range): string {
  const copy = range.cloneContents();
  for (const widget of copy.querySelectorAll('.bn-collaboration-cursor__base')) widget.remove();
  const blocks = [...copy.querySelectorAll('.bn-inline-content')];
  const text = blocks.length > 0 ? blocks.map((b) => b.textContent ?? '').join('\n') : (copy.textContent ?? '');
  return text.slice(0, SELECTED_TEXT_MAX);
}

/**
 * The anchor of what is selected inside `root`: the block where the selection starts and the range
 * of it that is selected (to the block's end when the selection goes on into other blocks); the
 * quoted text is all of the selection. Null when nothing, or nothing but blanks, is selected there.
 */
export function anchorOfSelection(root: Element, selection: Selection | null): CommentAnchor | null {
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!root.contains(range.startContainer)) return null;
  const startElement =
    range.startContainer instanceof Element ? range.startContainer : range.startContainer.parentElement;
  const container = startElement?.closest<HTMLElement>('.bn-inline-content');
  const blockId = container?.closest(BLOCK)?.getAttribute('data-id');
  if (!container || !blockId) return null;
  const selectedText = selectedTextOf(range);
  if (!selectedText.trim()) return null;
  const startOffset = textOffset(container, range.startContainer, range.startOffset);
  const endOffset = container.contains(range.endContainer)
    ? textOffset(container, range.endContainer, range.endOffset)
    : blockTextOf(container).length;
  return { blockId, startOffset, endOffset: Math.max(startOffset, endOffset), selectedText };
}

/**
 * Where an anchor is in the text as it is now: its offsets while they still hold its quoted text;
 * after others' edits moved the text, the occurrence of the quote nearest to them; failing that,
 * the offsets as far as the block still reaches, or the whole block.
 */
export function locateAnchor(root: ParentNode, anchor: CommentAnchor): Range | null {
  const container = inlineContentOf(root, anchor.blockId);
  if (!container) return null;
  const text = blockTextOf(container);
  const quote = anchor.selectedText.split('\n')[0];
  const { startOffset: start, endOffset: end } = anchor;
  if (quote && text.slice(start, start + quote.length) === quote) {
    return rangeOver(container, start, start + quote.length);
  }
  const found = quote ? nearestIndex(text, quote, start) : -1;
  if (found >= 0) return rangeOver(container, found, found + quote.length);
  const clampedEnd = Math.min(end, text.length);
  if (start < clampedEnd) return rangeOver(container, start, clampedEnd);
  return rangeOver(container, 0, text.length);
}

function nearestIndex(text: string, part: string, near: number): number {
  let best = -1;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
    if (best < 0 || Math.abs(at - near) < Math.abs(best - near)) best = at;
  }
  return best;
}

/** The DOM point under the pointer (for finding which highlight was clicked). */
export function pointAt(x: number, y: number): { node: Node; offset: number } | null {
  if (document.caretPositionFromPoint) {
    const position = document.caretPositionFromPoint(x, y);
    return position ? { node: position.offsetNode, offset: position.offset } : null;
  }
  const range = document.caretRangeFromPoint?.(x, y);
  return range ? { node: range.startContainer, offset: range.startOffset } : null;
}
