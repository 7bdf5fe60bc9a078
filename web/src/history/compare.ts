import type { BlockChange, WordOp } from '../api/types';

/**
 * A revision's blocks laid out for reading, with what changed since then marked: the blocks of the
 * revision in their order, and the blocks added since placed after the block they follow now.
 * Only plain text is taken from the content; nothing of it is ever treated as HTML.
 */
export interface CompareRow {
  /** The block's key as the diff names it (its id, or `#n`). */
  key: string;
  /** Unique among the rows (a React key). */
  uid: string;
  /** `same` when the block did not change, or when changes are not shown. */
  change: BlockChange['change'] | 'same';
  /** How the block reads: paragraph, heading 1–3, list items, quote, code, table, media. */
  kind: string;
  depth: number;
  text: string;
  /** For a changed block: its words from the revision to the current text. */
  ops?: WordOp[];
  checked?: boolean;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text of inline content: text, links, mentions and anything else that carries text. */
function inlineText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((item) => {
      if (typeof item === 'string') return item;
      if (!isObject(item)) return '';
      if (typeof item.text === 'string') return item.text;
      if (item.type === 'mention' && isObject(item.props)) {
        const name = Object.values(item.props).find((v) => typeof v === 'string' && v !== '');
        return name ? `@${name}` : '';
      }
      return inlineText(item.content);
    })
    .join('');
}

/** A block's own text as the server's diff reads it: table rows as lines of tab-separated cells, captions. */
function blockText(block: Json): string {
  const lines: string[] = [];
  const content = block.content;
  if (isObject(content) && content.type === 'tableContent') {
    for (const row of Array.isArray(content.rows) ? content.rows : []) {
      const cells = isObject(row) && Array.isArray(row.cells) ? row.cells : [];
      const texts = cells.map((cell) => inlineText(isObject(cell) ? cell.content : cell));
      if (texts.some((t) => t.trim() !== '')) lines.push(texts.join('\t'));
    }
  } else {
    const text = inlineText(content);
    if (text !== '') lines.push(text);
  }
  const props = isObject(block.props) ? block.props : {};
  if (typeof props.caption === 'string' && props.caption !== '') lines.push(props.caption);
  else if (lines.length === 0 && typeof props.name === 'string' && props.name !== '') lines.push(props.name);
  return lines.join('\n');
}

function kindOf(block: Json): string {
  const type = typeof block.type === 'string' ? block.type : 'paragraph';
  if (type === 'heading') {
    const level = isObject(block.props) ? Number(block.props.level) : 1;
    return `heading-${level >= 1 && level <= 3 ? level : 1}`;
  }
  return type;
}

interface FlatBlock {
  key: string;
  uid: string;
  depth: number;
  block: Json;
}

/** Blocks in reading order, children after their parent, each keyed as the diff names it (`#n` without an id). */
function flatten(blocks: unknown[]): FlatBlock[] {
  const out: FlatBlock[] = [];
  let idless = 0;
  const seen = new Map<string, number>();
  const walk = (list: unknown, depth: number) => {
    if (!Array.isArray(list)) return;
    for (const block of list) {
      if (!isObject(block)) continue;
      const key = typeof block.id === 'string' && block.id !== '' ? block.id : `#${idless++}`;
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      out.push({ key, uid: count === 1 ? key : `${key}~${count}`, depth, block });
      walk(block.children, depth + 1);
    }
  };
  walk(blocks, 0);
  return out;
}

const rowOf = (flat: FlatBlock, change: CompareRow['change'], ops?: WordOp[]): CompareRow => ({
  key: flat.key,
  uid: change === 'added' ? `now:${flat.uid}` : flat.uid,
  change,
  kind: kindOf(flat.block),
  depth: flat.depth,
  text: blockText(flat.block),
  ops,
  checked: isObject(flat.block.props) ? flat.block.props.checked === true : undefined,
});

/** The revision's blocks, unmarked. */
export function plainRows(revisionBlocks: unknown[]): CompareRow[] {
  return flatten(revisionBlocks).map((flat) => rowOf(flat, 'same'));
}

/**
 * The revision's blocks with the diff to the current text applied: removed, changed (word by word)
 * and moved blocks marked where they stand in the revision, added ones taken from the current text.
 */
export function compareRows(revisionBlocks: unknown[], currentBlocks: unknown[], changes: BlockChange[]): CompareRow[] {
  const byKey = new Map(changes.map((change) => [change.blockId, change]));
  const rows = flatten(revisionBlocks).map((flat) => {
    const change = byKey.get(flat.key);
    if (!change || change.change === 'added') return rowOf(flat, 'same');
    return rowOf(flat, change.change, change.change === 'changed' ? change.text : undefined);
  });

  // Each added block goes right after the block it follows in the current text (added ones included).
  let previous: string | null = null;
  for (const flat of flatten(currentBlocks)) {
    if (byKey.get(flat.key)?.change === 'added') {
      const at = previous === null ? 0 : rows.findIndex((row) => row.key === previous) + 1;
      rows.splice(at, 0, rowOf(flat, 'added'));
    }
    previous = flat.key;
  }
  return rows;
}
