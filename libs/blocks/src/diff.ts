import { diffWordsWithSpace } from 'diff';
import { type Block, blockId, idOfKey, isObject, keyMaker, sameJson } from './block.js';
import { blockLines } from './plain-text.js';
import { longestIncreasing } from './sequence.js';

export type BlockChangeKind = 'added' | 'removed' | 'changed' | 'moved';

export interface TextOp {
  op: 'equal' | 'insert' | 'delete';
  text: string;
}

export interface BlockChange {
  blockId: string;
  change: BlockChangeKind;
  /** For changed blocks: the block's text from `from` to `to`, by words. */
  text?: TextOp[];
}

/** One block of a flattened document and where it sits (its own `children` are flattened after it). */
export interface FlatBlock {
  key: string;
  /** The key of the block it is nested in; null at the top level. */
  parentKey: string | null;
  block: Block;
}

/** Every block, nested ones after their parent (depth first), each keyed as blockKeys says. */
export function flattenBlocks(blocks: readonly Block[]): FlatBlock[] {
  const flat: FlatBlock[] = [];
  const nextKey = keyMaker();
  const walk = (list: unknown, parentKey: string | null) => {
    if (!Array.isArray(list)) return;
    for (const block of list) {
      if (!isObject(block)) continue;
      const key = nextKey(blockId(block as Block));
      flat.push({ key, parentKey, block: block as Block });
      walk(block.children, key);
    }
  };
  walk(blocks, null);
  return flat;
}

const NOT_THE_BODY = new Set(['id', 'children']);

/** Whether a block holds the same as before, its id and nested blocks left aside (they count on their own). */
const sameBody = (a: FlatBlock, b: FlatBlock) => sameJson(a.block, b.block, NOT_THE_BODY);

/** The text of a block by itself: its lines as plain text reads them. */
const textOf = (block: Block) => blockLines(block).join('\n');

/**
 * The words that changed from one text to the other, neighbouring ops of one kind joined. Spaces
 * are tokens too (diffWordsWithSpace): equal + delete ops rebuild `from` exactly, equal + insert `to`.
 */
export function wordOps(from: string, to: string): TextOp[] {
  if (from === to) return from === '' ? [] : [{ op: 'equal', text: from }];
  const ops: TextOp[] = [];
  for (const part of diffWordsWithSpace(from, to)) {
    const op: TextOp['op'] = part.added ? 'insert' : part.removed ? 'delete' : 'equal';
    const last = ops[ops.length - 1];
    if (last && last.op === op) last.text += part.value;
    else if (part.value !== '') ops.push({ op, text: part.value });
  }
  return ops;
}

/**
 * How to get from one version of a document to another, block by block (ARCHITECTURE 5.16):
 * added (in `to` only), removed (in `from` only), changed (in both, different: `text` by words),
 * moved (same block, another place among the blocks both share, or another parent). Blocks are
 * matched by id, nested ones flattened depth first. Only blocks that differ are listed, in the
 * order of `to`, each removed block after the block it followed in `from`.
 */
export function diffBlocks(from: readonly Block[], to: readonly Block[]): BlockChange[] {
  const before = flattenBlocks(from);
  const after = flattenBlocks(to);
  const beforeByKey = new Map(before.map((block, index) => [block.key, { block, index }]));
  const afterKeys = new Set(after.map((block) => block.key));

  // A block under another parent moved. Of the other shared blocks, in `to` order by their place
  // in `from`, those off one longest increasing run moved.
  const shared = after.flatMap((block) => {
    const old = beforeByKey.get(block.key);
    return old ? [{ key: block.key, index: old.index, reparented: old.block.parentKey !== block.parentKey }] : [];
  });
  const moved = new Set(shared.filter((b) => b.reparented).map((b) => b.key));
  const staying = shared.filter((b) => !b.reparented);
  const kept = longestIncreasing(staying.map((b) => b.index));
  for (const [i, b] of staying.entries()) if (!kept.has(i)) moved.add(b.key);

  // Removed blocks, grouped under the nearest shared block before them in `from` (null: the start).
  const removedAfter = new Map<string | null, BlockChange[]>();
  let anchor: string | null = null;
  for (const block of before) {
    if (afterKeys.has(block.key)) {
      anchor = block.key;
      continue;
    }
    const list = removedAfter.get(anchor) ?? [];
    list.push({ blockId: idOfKey(block.key), change: 'removed' });
    removedAfter.set(anchor, list);
  }

  const changes: BlockChange[] = [...(removedAfter.get(null) ?? [])];
  for (const block of after) {
    const old = beforeByKey.get(block.key)?.block;
    if (old === undefined) {
      changes.push({ blockId: idOfKey(block.key), change: 'added' });
      continue;
    }
    if (!sameBody(old, block)) {
      changes.push({
        blockId: idOfKey(block.key),
        change: 'changed',
        text: wordOps(textOf(old.block), textOf(block.block)),
      });
    } else if (moved.has(block.key)) {
      changes.push({ blockId: idOfKey(block.key), change: 'moved' });
    }
    changes.push(...(removedAfter.get(block.key) ?? []));
  }
  return changes;
}
