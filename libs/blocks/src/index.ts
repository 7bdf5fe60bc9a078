export { type Block, blockKeys, idOfKey, sameJson } from './block.js';
export {
  type BlockChange,
  type BlockChangeKind,
  diffBlocks,
  type FlatBlock,
  flattenBlocks,
  type TextOp,
  wordOps,
} from './diff.js';
export { applyMergeOps, type BlockPrint, blockPrints, type MergeOp, planMerge, planMergeOnPrints } from './merge.js';
export * from './plain-text.js';
