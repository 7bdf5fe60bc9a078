import { type Block, blockId, hashOf, idOfKey, keyMaker, sameJson } from './block.js';
import { longestIncreasing } from './sequence.js';

/**
 * A top-level block as a merge base needs it: its id and a hash of its JSON (children included).
 * The hash is of the JSON as serialised: base prints should come from the same serialiser as
 * `theirs` (the collab server lays every side out through BlockNote), else an unchanged block in
 * another key order counts as changed by theirs (it then replaces mine's only where mine differs).
 */
export interface BlockPrint {
  id?: string;
  hash: string;
}

/**
 * One step of a merge plan on the top-level blocks of `mine`. Steps apply in order, each index
 * counted in the list as the steps before left it: `move` takes the block out at `from` and puts
 * it back at `to` (counted without it).
 */
export type MergeOp =
  | { op: 'insert'; index: number; block: Block }
  | { op: 'delete'; index: number; blockId: string }
  | { op: 'replace'; index: number; block: Block }
  | { op: 'move'; from: number; to: number; blockId: string };

export function blockPrints(blocks: readonly Block[]): BlockPrint[] {
  return blocks.map((block) => {
    const id = blockId(block);
    const hash = hashBlock(block);
    return id === undefined ? { hash } : { id, hash };
  });
}

const hashBlock = (block: Block) => hashOf(JSON.stringify(block));

interface Keyed<T> {
  key: string;
  value: T;
}

function keyed<T extends { id?: unknown }>(items: readonly T[]): Keyed<T>[] {
  const nextKey = keyMaker();
  return items.map((value) => ({ key: nextKey(typeof value.id === 'string' ? value.id : undefined), value }));
}

/**
 * The top-level steps that bring into `mine` what `theirs` changed relative to `base` (see
 * planMergeOnPrints); `base` as blocks.
 */
export function planMerge(base: readonly Block[], mine: readonly Block[], theirs: readonly Block[]): MergeOp[] {
  return planMergeOnPrints(blockPrints(base), mine, theirs);
}

/**
 * The top-level steps that bring into `mine` what `theirs` changed relative to `base`, keeping
 * every change of mine that theirs did not touch. Blocks are matched by id (blockKeys). Per block:
 * - theirs deleted it (in base, not in theirs): deleted, even if mine changed it;
 * - theirs changed it (hash differs from base): theirs' version replaces mine's; if mine had
 *   deleted it, theirs' version comes back;
 * - theirs added it (not in base): inserted, unless mine already holds it (a base that missed a
 *   save of mine: mine's version is the newer one and stays);
 * - theirs moved it (off the longest run of base order among the blocks both share): put where
 *   theirs has it;
 * - anything else: as mine has it (including the blocks only mine has, and mine's own deletes).
 * A block goes after the nearest block before it in theirs that the result holds, else before the
 * nearest one after it, else first (if first in theirs) or last. Pure: same inputs, same plan.
 */
export function planMergeOnPrints(
  base: readonly BlockPrint[],
  mine: readonly Block[],
  theirs: readonly Block[],
): MergeOp[] {
  const baseBlocks = keyed(base);
  const mineBlocks = keyed(mine);
  const theirBlocks = keyed(theirs);
  const baseByKey = new Map(baseBlocks.map((b, index) => [b.key, { hash: b.value.hash, index }]));
  const mineByKey = new Map(mineBlocks.map((b) => [b.key, b.value]));
  const theirsByKey = new Map(theirBlocks.map((b) => [b.key, b.value]));
  // Only blocks that base holds are hashed (theirs changed them or not); mine is compared with theirs directly.
  const theirsChanged = (key: string) => {
    const before = baseByKey.get(key);
    const their = theirsByKey.get(key);
    return before !== undefined && their !== undefined && before.hash !== hashBlock(their);
  };

  const ops: MergeOp[] = [];
  const current = mineBlocks.map((b) => b.key);

  // Deleted by theirs.
  for (const { key } of mineBlocks) {
    if (baseByKey.has(key) && !theirsByKey.has(key)) {
      const index = current.indexOf(key);
      ops.push({ op: 'delete', index, blockId: idOfKey(key) });
      current.splice(index, 1);
    }
  }
  // Changed by theirs, still held by mine.
  const changedByTheirs = new Set(theirBlocks.filter((b) => theirsChanged(b.key)).map((b) => b.key));
  for (const [index, key] of current.entries()) {
    const their = theirsByKey.get(key);
    if (their && changedByTheirs.has(key) && !sameJson(their, mineByKey.get(key))) {
      ops.push({ op: 'replace', index, block: their });
    }
  }

  // Added or changed by theirs and not held by mine, or moved by theirs: placed where theirs has them.
  const shared = theirBlocks.flatMap((b) => {
    const before = baseByKey.get(b.key);
    return before ? [{ key: b.key, index: before.index }] : [];
  });
  const kept = longestIncreasing(shared.map((b) => b.index));
  const moved = new Set(shared.filter((_, i) => !kept.has(i)).map((b) => b.key));
  const pending = new Set<string>();
  const held = new Set(current);
  for (const { key } of theirBlocks) {
    if (held.has(key) ? moved.has(key) : !baseByKey.has(key) || changedByTheirs.has(key)) pending.add(key);
  }
  if (pending.size === 0) return ops;

  // Where a placed block goes: the result's index of a neighbour in theirs that is settled there.
  const settledAt = (j: number): number => {
    const key = theirBlocks[j]?.key;
    return key === undefined || pending.has(key) ? -1 : current.indexOf(key);
  };
  const placeOf = (at: number): number => {
    for (let j = at - 1; j >= 0; j -= 1) {
      const index = settledAt(j);
      if (index !== -1) return index + 1;
    }
    for (let j = at + 1; j < theirBlocks.length; j += 1) {
      const index = settledAt(j);
      if (index !== -1) return index;
    }
    return at === 0 ? 0 : current.length;
  };
  for (const [at, { key, value }] of theirBlocks.entries()) {
    if (!pending.has(key)) continue;
    pending.delete(key);
    const from = current.indexOf(key);
    if (from !== -1) current.splice(from, 1);
    const to = placeOf(at);
    current.splice(to, 0, key);
    if (from === -1) ops.push({ op: 'insert', index: to, block: value });
    else if (from !== to) ops.push({ op: 'move', from, to, blockId: idOfKey(key) });
  }
  return ops;
}

/** `mine` with the plan's steps applied (what a room holds after them): for tests and checks. */
export function applyMergeOps(mine: readonly Block[], ops: readonly MergeOp[]): Block[] {
  const blocks = [...mine];
  for (const step of ops) {
    switch (step.op) {
      case 'insert':
        blocks.splice(step.index, 0, step.block);
        break;
      case 'delete':
        blocks.splice(step.index, 1);
        break;
      case 'replace':
        blocks[step.index] = step.block;
        break;
      case 'move': {
        const [block] = blocks.splice(step.from, 1);
        if (block) blocks.splice(step.to, 0, block);
        break;
      }
    }
  }
  return blocks;
}
